-- Housekeeping, one statement per pass: deletes up to :limit rows from each of the feature
-- tables that only grow otherwise: records of fired schedule slots older than
-- :fire_older_than_ms (slots only ever fire forward, so old records guard nothing), uniqueness
-- keys whose window ran out, and webhook deliveries DELIVERED more than
-- :delivered_older_than_ms or DEAD more than :dead_older_than_ms ago, and the per-key window
-- counts of fair queues (readpast_key_rate) whose window has passed, or whose queue no longer
-- limits its keys: a claim reads only its key's count of the current window, so they count
-- nothing. Rows another transaction holds (a claim counting its key) are skipped. Returns how
-- many rows each part deleted.
WITH fires AS (
    DELETE FROM readpast_schedule_fire
    WHERE (schedule_name, slot_at) IN (
        SELECT f.schedule_name, f.slot_at FROM readpast_schedule_fire AS f
        WHERE f.fired_at < now() - CAST(:fire_older_than_ms AS bigint) * interval '1 millisecond'
        ORDER BY f.fired_at
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    )
    RETURNING 1
),
unique_keys AS (
    DELETE FROM readpast_unique_key
    WHERE unique_key IN (
        SELECT k.unique_key FROM readpast_unique_key AS k
        WHERE k.expires_at <= now()
        ORDER BY k.expires_at
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    )
    RETURNING 1
),
webhooks AS (
    DELETE FROM readpast_webhook
    WHERE id IN (
        SELECT w.id FROM readpast_webhook AS w
        WHERE (w.status = 2 AND w.updated_at < now() - CAST(:delivered_older_than_ms AS bigint) * interval '1 millisecond')
           OR (w.status = 3 AND w.updated_at < now() - CAST(:dead_older_than_ms AS bigint) * interval '1 millisecond')
        ORDER BY w.updated_at
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    )
    RETURNING 1
),
key_rates AS (
    DELETE FROM readpast_key_rate
    WHERE (queue, fairness_key) IN (
        SELECT r.queue, r.fairness_key FROM readpast_key_rate AS r
        INNER JOIN readpast_queue AS q ON q.name = r.queue
        WHERE q.key_rate_limit IS NULL
           OR r.rate_window < CAST(floor(extract(epoch FROM now()) * 1000 / q.key_rate_period_ms) AS bigint)
        LIMIT :limit
        FOR UPDATE OF r SKIP LOCKED
    )
    RETURNING 1
)
SELECT (SELECT count(*) FROM fires) AS fires,
       (SELECT count(*) FROM unique_keys) AS unique_keys,
       (SELECT count(*) FROM webhooks) AS webhooks,
       (SELECT count(*) FROM key_rates) AS key_rates
