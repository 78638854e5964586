-- Ordered groups: serialises enqueues (and requeues) into one group until the transaction
-- ends, so that the group's jobs become visible in the order of their group_seq, drawn under
-- this lock. sp_getapplock, owned by the transaction; the resource is the group key (at most
-- 200 characters) with a checksum of the queue name (resource names are limited to 255
-- characters). Two queues whose names share a checksum share their groups' locks: that only
-- serialises more, never less. (Not a hex digest: CONVERT(..., 2) of varbinary fails on
-- Babelfish.) Waits at most 10 s, then fails.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @result int;
DECLARE @known int;
DECLARE @resource nvarchar(255) = N'readpast:group:' + CAST(CHECKSUM(@queue) AS nvarchar(11)) + N':'
    + @group_key;

-- Under implicit transactions (mssql-jdbc with autocommit off) a transaction begins only with a
-- statement that reads or writes a table, and sp_getapplock with a transaction owner needs one:
-- read the queue row first.
SELECT @known = COUNT(*)
FROM readpast_queue AS q
WHERE q.name = @queue;

-- positional arguments (resource, lock mode, lock owner, timeout in ms): a named argument
-- would read as a statement parameter here
EXEC @result = sp_getapplock @resource, N'Exclusive', N'Transaction', 10000;

-- -1: timed out, -3: chosen as a deadlock victim: both worth another try (Readpast's own error
-- numbers 51222 and 51205, which the broker retries like 1222 and 1205); anything else is not
IF @result = -1
BEGIN
    THROW 51222, N'readpast: the job group lock timed out', 1;
END;
IF @result = -3
BEGIN
    THROW 51205, N'readpast: the job group lock request was chosen as a deadlock victim', 1;
END;
IF @result < 0
BEGIN
    THROW 51000, N'readpast: the job group lock was not granted', 1;
END;

SELECT @result AS locked;
