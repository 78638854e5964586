-- In a fair queue, pending jobs without a fairness key share the key '' (docs/fairness.md):
-- enqueues into a fair queue store it so; this gives it to the jobs that were there before the
-- queue became fair, and to the few an enqueue in flight stored just then. Up to :limit jobs
-- of fair queues (one queue, :queue; NULL: every fair queue), skipping rows others hold.
-- Returns the ids given the key.
UPDATE readpast_job AS j
SET fairness_key = ''
FROM (
    SELECT x.id
    FROM readpast_queue AS q
    CROSS JOIN LATERAL (
        SELECT p.id
        FROM readpast_job AS p
        WHERE p.queue = q.name AND p.status IN (0, 6) AND p.fairness_key IS NULL
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    ) AS x
    WHERE q.fair
      AND (CAST(:queue AS varchar(200)) IS NULL OR q.name = CAST(:queue AS varchar(200)))
    LIMIT :limit
) AS f
WHERE j.id = f.id
  AND j.fairness_key IS NULL
RETURNING j.id
