-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- The claim: one statement. For each eligible queue (not paused, active, in the filter;
-- capped queues only when the previous statement locked them), take due pending rows in
-- claim order with FOR UPDATE SKIP LOCKED, at most the queue's free slots; then the best
-- :limit rows overall, ordered by priority then due time, become LEASED with a fresh lease
-- (of the claim's length, else the queue's, else the broker default).
-- A rate-limited queue (rate_limit claims per rate_period_ms) is, like a capped one, eligible
-- only when the previous statement locked it; its room is also limited by the claims left in
-- the current window (the caller then counts the claimed jobs with queue_rate_count, in the
-- same transaction). Grouped jobs (group_key) run one at a time per group, in enqueue order.
-- Only the rows taken are locked: with more than one eligible queue, "shares" first finds how
-- many of the best :limit rows each queue holds without locking any, and each queue's locking
-- read then takes that many. Scheduled jobs whose time has come are promoted first
-- (include/promote_due.sql), in the same round trip and transaction.
-- Claims merged by the broker (readpast.merging.claims) run as one: :claimers is a JSON array of
-- {"n": the claim's index, "worker_id", "lease_seconds" (null: the queue's, else the default),
-- "lo", "hi"}, slices of the ranked rows taken in order (the first claim gets the best rows, rows
-- lo+1..hi); :limit is the sum. Each row comes back with its claim's index, "claimer".
-- include: promote_due.sql
WITH claimers AS (
    SELECT c.n, c.worker_id, c.lease_seconds, c.lo, c.hi
    FROM jsonb_to_recordset(CAST(:claimers AS jsonb))
         AS c(n integer, worker_id text, lease_seconds integer, lo integer, hi integer)
),
eligible AS (
    SELECT
        q.name,
        q.lease_seconds,
        LEAST(
            CASE
                WHEN q.max_workers IS NULL THEN CAST(:limit AS integer)
                ELSE GREATEST(q.max_workers - (
                    SELECT count(*) FROM readpast_job AS a
                    WHERE a.queue = q.name AND a.status IN (1, 2)), 0)
            END,
            -- rate limit: the claims left in the current window (epoch-aligned, database clock)
            CASE
                WHEN q.rate_limit IS NULL THEN CAST(:limit AS integer)
                WHEN q.rate_window = floor(extract(epoch FROM now()) * 1000 / q.rate_period_ms)
                    THEN GREATEST(q.rate_limit - q.rate_window_count, 0)
                ELSE q.rate_limit
            END
        ) AS room
    FROM readpast_queue AS q
    WHERE NOT q.paused
      AND q.active
      -- a fair queue is claimed by job_claim_fair alone, under its lock
      AND NOT q.fair
      AND ((q.max_workers IS NULL AND q.rate_limit IS NULL)
           OR q.name IN (SELECT jsonb_array_elements_text(CAST(:locked_queues AS jsonb))))
      AND (CAST(:queues AS jsonb) IS NULL
           OR q.name IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))
),
multi AS (
    SELECT count(*) > 1 AS yes FROM eligible AS m WHERE m.room > 0
),
shares AS (
    SELECT w.queue, count(*) AS n
    FROM (
        SELECT c.queue
        FROM eligible AS e
        CROSS JOIN LATERAL (
            SELECT j.queue, j.priority, j.due_at, j.id
            FROM readpast_job AS j
            WHERE j.queue = e.name AND j.status = 0 AND j.due_at <= now()
              AND (j.expires_at IS NULL OR j.expires_at > now())
              -- a claim for some job types only (:types, a JSON array; NULL: every type)
              AND (CAST(:types AS jsonb) IS NULL
                   OR j.type IN (SELECT jsonb_array_elements_text(CAST(:types AS jsonb))))
            ORDER BY j.priority DESC, j.due_at, j.id
            LIMIT e.room
        ) AS c
        WHERE (SELECT yes FROM multi)
        ORDER BY c.priority DESC, c.due_at, c.id
        LIMIT :limit
    ) AS w
    GROUP BY w.queue
),
picked AS (
    SELECT c.id, e.lease_seconds AS queue_lease_seconds,
           row_number() OVER (ORDER BY c.priority DESC, c.due_at, c.id) AS rn
    FROM eligible AS e
    LEFT JOIN shares AS sh ON sh.queue = e.name
    CROSS JOIN LATERAL (
        SELECT j.id, j.priority, j.due_at
        FROM readpast_job AS j
        WHERE j.queue = e.name AND j.status = 0 AND j.due_at <= now()
          -- expiresAt, job types, ordered groups
          -- include: claimable.sql
        ORDER BY j.priority DESC, j.due_at, j.id
        LIMIT CASE WHEN (SELECT yes FROM multi) THEN COALESCE(sh.n, 0) ELSE e.room END
        FOR UPDATE SKIP LOCKED
    ) AS c
    ORDER BY c.priority DESC, c.due_at, c.id
    LIMIT :limit
)
UPDATE readpast_job AS j
SET status = 1,
    attempt = j.attempt + 1,
    worker_id = cl.worker_id,
    lease_id = gen_random_uuid(),
    lease_seconds = COALESCE(cl.lease_seconds, p.queue_lease_seconds, CAST(:default_lease_seconds AS integer)),
    -- a job with timeoutSeconds: its lease never runs past its deadline (LEAST skips a NULL)
    lease_expires_at = LEAST(now() + COALESCE(cl.lease_seconds, p.queue_lease_seconds,
                                              CAST(:default_lease_seconds AS integer)) * interval '1 second',
                             now() + j.timeout_seconds * interval '1 second'),
    deadline_at = now() + j.timeout_seconds * interval '1 second',
    heartbeat_at = NULL,
    modified_by = COALESCE(:modified_by, j.modified_by),
    updated_at = now()
FROM picked AS p
INNER JOIN claimers AS cl ON p.rn > cl.lo AND p.rn <= cl.hi
WHERE j.id = p.id
RETURNING j.*, cl.n AS claimer
