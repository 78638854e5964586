-- Review round 2 (docs/sqlserver.md), on the SQL enqueue procedures of V17:
-- N3: they run at READ COMMITTED whatever isolation level the caller's transaction has. SQL
--     Server resets a level set inside a procedure when the procedure returns, so the caller's
--     own statements keep theirs; inside, a SNAPSHOT caller no longer meets update conflicts
--     (3960) on Readpast's rows, and a REPEATABLE READ or SERIALIZABLE caller no longer keeps
--     shared or range locks on what the procedures read (the queue's row, the settings, a
--     uniqueness key's holder) to its commit. What each level gets: docs/sql-enqueue.md.
-- L2: the exact UTF-8 count of a payload near the size limit also runs on Azure SQL, which
--     reports major version 12 (engine editions 5 and 8) but has the UTF-8 collations.
-- The procedures are altered in place from their own stored definitions (ALTER keeps their
-- grants to readpast_producer), each change checked to have been made exactly where expected:
-- a definition that does not read as V17 wrote it stops the migration. Babelfish, whose
-- isolation levels are PostgreSQL's and which never runs as Azure SQL, keeps V17's.
IF SERVERPROPERTY('babelfish') IS NULL
BEGIN
    DECLARE @patch TABLE (
        n int NOT NULL PRIMARY KEY,
        proc_name sysname NOT NULL,
        find nvarchar(400) NOT NULL,
        replace_with nvarchar(800) NOT NULL
    );
    INSERT INTO @patch (n, proc_name, find, replace_with)
    VALUES
    (1, N'readpast_enqueue_item', N'CREATE PROCEDURE readpast_enqueue_item',
        N'ALTER PROCEDURE readpast_enqueue_item'),
    (2, N'readpast_enqueue_item', N'SET NOCOUNT ON;',
        N'SET NOCOUNT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED;'),
    (3, N'readpast_enqueue_item', N'AND CAST(SERVERPROPERTY(''ProductMajorVersion'') AS int) >= 15',
        N'AND (CAST(SERVERPROPERTY(''ProductMajorVersion'') AS int) >= 15 '
        + N'OR CAST(SERVERPROPERTY(''EngineEdition'') AS int) IN (5, 8))'),
    (4, N'readpast_enqueue', N'CREATE PROCEDURE readpast_enqueue',
        N'ALTER PROCEDURE readpast_enqueue'),
    (5, N'readpast_enqueue', N'SET NOCOUNT ON;',
        N'SET NOCOUNT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED;'),
    (6, N'readpast_enqueue_many', N'CREATE PROCEDURE readpast_enqueue_many',
        N'ALTER PROCEDURE readpast_enqueue_many'),
    (7, N'readpast_enqueue_many', N'SET NOCOUNT ON;',
        N'SET NOCOUNT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED;');

    DECLARE @proc sysname;
    DECLARE @def nvarchar(max);
    DECLARE @n int;
    DECLARE @find nvarchar(400);
    DECLARE @with nvarchar(800);
    DECLARE @at int;
    DECLARE @message nvarchar(2048);

    SET @proc = (SELECT MIN(p.proc_name) FROM @patch AS p);
    WHILE @proc IS NOT NULL
    BEGIN
        SET @def = OBJECT_DEFINITION(OBJECT_ID(N'dbo.' + @proc, N'P'));
        IF @def IS NULL
        BEGIN
            SET @message = CONCAT(N'V28: no procedure dbo.', @proc, N' to alter (V17 creates it)');
            THROW 50000, @message, 1;
        END;
        SET @n = (SELECT MIN(p.n) FROM @patch AS p WHERE p.proc_name = @proc);
        WHILE @n IS NOT NULL
        BEGIN
            SELECT @find = p.find, @with = p.replace_with FROM @patch AS p WHERE p.n = @n;
            SET @at = CHARINDEX(@find, @def);
            -- exactly once: not found, or found twice, and the definition is not V17's
            IF @at = 0 OR CHARINDEX(@find, @def, @at + LEN(@find)) > 0
            BEGIN
                SET @message = CONCAT(N'V28: dbo.', @proc, N' does not read as V17 wrote it (', @find, N')');
                THROW 50000, @message, 1;
            END;
            SET @def = STUFF(@def, @at, LEN(@find), @with);
            SET @n = (SELECT MIN(p.n) FROM @patch AS p WHERE p.proc_name = @proc AND p.n > @n);
        END;
        EXEC sp_executesql @def;
        SET @proc = (SELECT MIN(p.proc_name) FROM @patch AS p WHERE p.proc_name > @proc);
    END;
END;
