-- Housekeeping, one batch per pass: deletes up to @limit rows from each of the feature tables
-- that only grow otherwise: records of fired schedule slots older than @fire_older_than_ms
-- (slots only ever fire forward, so old records guard nothing), uniqueness keys whose window
-- ran out, and webhook deliveries DELIVERED more than @delivered_older_than_ms or DEAD more
-- than @dead_older_than_ms ago, and the per-key window counts of fair queues
-- (readpast_key_rate) whose window has passed, or whose queue no longer limits its keys: a claim
-- reads only its key's count of the current window, so they count nothing (a queue row another
-- transaction holds leaves its keys for a later pass). Rows another instance is deleting, or a
-- claim is counting, are skipped (READPAST,
-- ROWLOCK, READ COMMITTED; READCOMMITTEDLOCK, without which READPAST is refused under RCSI). Cutoffs are computed as in archive_purge_old (bigint split into
-- days and milliseconds, clamped). Deleted keys go OUTPUT ... INTO table variables; one row of
-- counts comes back.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @fires TABLE (fired_at datetime2(6) NOT NULL);
DECLARE @unique_keys TABLE (expires_at datetime2(6) NOT NULL);
DECLARE @webhooks TABLE (id bigint NOT NULL);
DECLARE @key_rates TABLE (queue nvarchar(200) NOT NULL);
DECLARE @now_ms bigint = DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS datetime2(6)), SYSUTCDATETIME());

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

DELETE TOP (@limit) r
OUTPUT deleted.queue INTO @key_rates (queue)
FROM readpast_key_rate AS r WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
INNER JOIN readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK) ON r.queue = q.name
WHERE
    q.key_rate_limit IS NULL
    OR r.rate_window < @now_ms / q.key_rate_period_ms
OPTION (RECOMPILE);

SELECT
    (SELECT COUNT(*) FROM @fires) AS fires,
    (SELECT COUNT(*) FROM @unique_keys) AS unique_keys,
    (SELECT COUNT(*) FROM @webhooks) AS webhooks,
    (SELECT COUNT(*) FROM @key_rates) AS key_rates;
