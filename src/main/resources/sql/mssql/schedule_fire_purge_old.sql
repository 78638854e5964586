-- Retention: deletes up to @limit records of fired slots older than @older_than_ms. Slots
-- are only ever fired forward (next_fire_at only grows), so old records are not needed to
-- keep a slot from firing twice. Rows another sweeper is deleting are skipped (READPAST,
-- ROWLOCK, READ COMMITTED). The cutoff is computed as in archive_purge_old (bigint split
-- into days and milliseconds, clamped). The deleted slots go OUTPUT ... INTO a table
-- variable and are read back.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @purged TABLE (slot_at datetime2(6) NOT NULL);

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

DELETE TOP (@limit) FROM readpast_schedule_fire WITH (READPAST, ROWLOCK)
OUTPUT deleted.slot_at INTO @purged (slot_at)
WHERE fired_at < @cutoff
OPTION (RECOMPILE);

SELECT p.slot_at
FROM @purged AS p;
