-- Retention: delete up to @limit dead letters that died more than @older_than_ms ago
-- (database clock). Rows another sweeper is deleting are skipped, not waited for (READPAST,
-- which needs READ COMMITTED, with ROWLOCK because READPAST skips row locks only, and
-- READCOMMITTEDLOCK so that under READ_COMMITTED_SNAPSHOT the scan reads locks rather than
-- row versions, as READPAST requires), so every
-- instance can run it; the caller repeats until a batch comes back short. DELETE TOP takes
-- no ORDER BY: each batch takes any qualifying rows, not necessarily the oldest.
-- The cutoff is computed once: @older_than_ms is bigint and DATEADD takes an int, so it is
-- split into days and milliseconds; an age reaching back before 0001-01-01 means no row is
-- old enough, and an age of zero or less means now. OPTION (RECOMPILE) lets the optimiser
-- see the cutoff value (a local variable otherwise gets a blind guess), so that it seeks the
-- finished_at index rather than scanning the table when few rows are old enough. The
-- deleted ids go OUTPUT ... INTO a table variable (never a bare OUTPUT) and are read back
-- as the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @purged TABLE (id bigint NOT NULL PRIMARY KEY);

DECLARE @cutoff datetime2(6) = CASE
    WHEN @older_than_ms <= 0 THEN SYSUTCDATETIME()
    WHEN
        @older_than_ms
        >= DATEDIFF_BIG(MILLISECOND, CAST('0001-01-01' AS datetime2(6)), SYSUTCDATETIME())
        THEN CAST('0001-01-01' AS datetime2(6))
    ELSE DATEADD(
        DAY,
        -CAST(@older_than_ms / 86400000 AS int),
        DATEADD(MILLISECOND, -CAST(@older_than_ms % 86400000 AS int), SYSUTCDATETIME())
    )
END;

DELETE TOP (@limit) FROM readpast_job_dead WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
OUTPUT deleted.id INTO @purged (id)
WHERE finished_at < @cutoff
OPTION (RECOMPILE);

SELECT p.id
FROM @purged AS p;
