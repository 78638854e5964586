-- Housekeeping, one batch per pass: deletes up to @limit rows from each of the feature tables
-- that only grow otherwise: records of fired schedule slots older than @fire_older_than_ms
-- (slots only ever fire forward, so old records guard nothing), uniqueness keys whose window
-- ran out, and webhook deliveries DELIVERED more than @delivered_older_than_ms or DEAD more
-- than @dead_older_than_ms ago. Rows another instance is deleting are skipped (READPAST,
-- ROWLOCK, READ COMMITTED; READCOMMITTEDLOCK, without which READPAST is refused under RCSI). Cutoffs are computed as in archive_purge_old (bigint split into
-- days and milliseconds, clamped). Deleted keys go OUTPUT ... INTO table variables; one row of
-- counts comes back.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @fires TABLE (fired_at datetime2(6) NOT NULL);
DECLARE @unique_keys TABLE (expires_at datetime2(6) NOT NULL);
DECLARE @webhooks TABLE (id bigint NOT NULL);

DECLARE @fire_cutoff datetime2(6) = CASE
    WHEN @fire_older_than_ms <= 0 THEN SYSUTCDATETIME()
    WHEN
        @fire_older_than_ms
        >= DATEDIFF_BIG(MILLISECOND, CAST('0001-01-01' AS datetime2(6)), SYSUTCDATETIME())
        THEN CAST('0001-01-01' AS datetime2(6))
    ELSE DATEADD(
        DAY,
        -CAST(@fire_older_than_ms / 86400000 AS int),
        DATEADD(MILLISECOND, -CAST(@fire_older_than_ms % 86400000 AS int), SYSUTCDATETIME())
    )
END;

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

DELETE TOP (@limit) FROM readpast_schedule_fire WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
OUTPUT deleted.fired_at INTO @fires (fired_at)
WHERE fired_at < @fire_cutoff
OPTION (RECOMPILE);

DELETE TOP (@limit) FROM readpast_unique_key WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
OUTPUT deleted.expires_at INTO @unique_keys (expires_at)
WHERE expires_at <= SYSUTCDATETIME();

DELETE TOP (@limit) FROM readpast_webhook WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
OUTPUT deleted.id INTO @webhooks (id)
WHERE (status = 2 AND updated_at < @delivered_cutoff)
    OR (status = 3 AND updated_at < @dead_cutoff)
OPTION (RECOMPILE);

SELECT
    (SELECT COUNT(*) FROM @fires) AS fires,
    (SELECT COUNT(*) FROM @unique_keys) AS unique_keys,
    (SELECT COUNT(*) FROM @webhooks) AS webhooks;
