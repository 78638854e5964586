-- Retention: deletes up to @limit finished deliveries, DELIVERED ones older than
-- @delivered_older_than_ms and DEAD ones older than @dead_older_than_ms (by their last
-- change). Rows another sweeper is deleting are skipped (READPAST, ROWLOCK, READ COMMITTED).
-- The cutoffs are computed as in archive_purge_old (bigint split into days and
-- milliseconds, clamped). The deleted ids go OUTPUT ... INTO a table variable and are read
-- back.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @purged TABLE (id bigint NOT NULL);

DECLARE @delivered_cutoff datetime2(6) = CASE
    WHEN @delivered_older_than_ms <= 0 THEN SYSUTCDATETIME()
    WHEN
        @delivered_older_than_ms
        >= DATEDIFF_BIG(MILLISECOND, CAST('0001-01-01' AS datetime2(6)), SYSUTCDATETIME())
        THEN CAST('0001-01-01' AS datetime2(6))
    ELSE DATEADD(
        DAY,
        -CAST(@delivered_older_than_ms / 86400000 AS int),
        DATEADD(MILLISECOND, -CAST(@delivered_older_than_ms % 86400000 AS int), SYSUTCDATETIME())
    )
END;

DECLARE @dead_cutoff datetime2(6) = CASE
    WHEN @dead_older_than_ms <= 0 THEN SYSUTCDATETIME()
    WHEN
        @dead_older_than_ms
        >= DATEDIFF_BIG(MILLISECOND, CAST('0001-01-01' AS datetime2(6)), SYSUTCDATETIME())
        THEN CAST('0001-01-01' AS datetime2(6))
    ELSE DATEADD(
        DAY,
        -CAST(@dead_older_than_ms / 86400000 AS int),
        DATEADD(MILLISECOND, -CAST(@dead_older_than_ms % 86400000 AS int), SYSUTCDATETIME())
    )
END;

DELETE TOP (@limit) FROM readpast_webhook WITH (READPAST, ROWLOCK)
OUTPUT deleted.id INTO @purged (id)
WHERE (status = 2 AND updated_at < @delivered_cutoff)
    OR (status = 3 AND updated_at < @dead_cutoff)
OPTION (RECOMPILE);

SELECT p.id
FROM @purged AS p;
