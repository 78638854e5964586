-- Ordered groups: serialises enqueues (and requeues) into one group until the transaction
-- ends, so that the group's jobs become visible in the order of their group_seq, drawn under
-- this lock. sp_getapplock, owned by the transaction; the resource is a digest of queue and
-- group key (resource names are limited to 255 characters). Waits at most 10 s, then fails.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @result int;
DECLARE @known int;
DECLARE @resource nvarchar(255) = N'readpast:group:' + CONVERT(
    nvarchar(64), HASHBYTES('SHA2_256', @queue + NCHAR(31) + @group_key), 2
);

-- Under implicit transactions (mssql-jdbc with autocommit off) a transaction begins only with a
-- statement that reads or writes a table, and sp_getapplock with a transaction owner needs one:
-- read the queue row first.
SELECT @known = COUNT(*)
FROM readpast_queue AS q
WHERE q.name = @queue;

-- positional arguments (resource, lock mode, lock owner, timeout in ms): a named argument
-- would read as a statement parameter here
EXEC @result = sp_getapplock @resource, N'Exclusive', N'Transaction', 10000;

IF @result < 0
BEGIN
    THROW 51000, N'readpast: the job group lock was not granted', 1;
END;

SELECT @result AS locked;
