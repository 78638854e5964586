-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- Ack and claim, one statement (POST /claim with "ack"): the acknowledged jobs whose lease is
-- held move to the archive as SUCCEEDED, or are deleted when their queue's onSuccess is delete
-- (as job_complete_many does), and up to :limit
-- claimable jobs of uncapped queues become LEASED (as job_claim does with no capped queue
-- locked; a claim that may reach a capped queue runs job_complete_many, queue_lock_capped and
-- job_claim in one transaction instead). The two parts touch different rows (held leases vs
-- pending jobs). :items is a JSON array of {"id", "lease_id", "result" (JSON text or null)}.
-- Returns one row per claimed job (job columns), or one row of NULL job columns when nothing
-- was claimed; the first row's "acked" is a JSON array of [id, queue, lease_id] of the completed jobs.
-- Completion webhooks of the acknowledged jobs go into the outbox in this same statement, and
-- expired jobs (expiresAt) are not claimed, as in job_complete_many and job_claim. As there, only
-- the rows taken are locked ("shares"), and scheduled jobs whose time has come are promoted
-- first, in the same round trip and transaction.
-- Claims merged by the broker (readpast.merging.claims) run as one: :claimers is a JSON array of
-- {"n": the claim's index, "worker_id", "lease_seconds" (null: the queue's, else the default),
-- "lo", "hi"}, slices of the ranked rows taken in order (the first claim gets the best rows, rows
-- lo+1..hi); :limit is the sum. Each row comes back with its claim's index, "claimer".
-- include: promote_due.sql
-- with when: TRUE
WITH claimers AS (
    SELECT c.n, c.worker_id, c.lease_seconds, c.lo, c.hi
    FROM jsonb_to_recordset(CAST(:claimers AS jsonb))
         AS c(n integer, worker_id text, lease_seconds integer, lo integer, hi integer)
),
items AS (
    -- an item repeated in the batch counts once, its first occurrence (so which result is
    -- kept does not depend on the join order the plan picks)
    SELECT DISTINCT ON (x.id, x.lease_id) x.id, x.lease_id, x.result
    FROM ROWS FROM (jsonb_to_recordset(CAST(:items AS jsonb)) AS (id bigint, lease_id uuid, result text))
         WITH ORDINALITY AS x(id, lease_id, result, n)
    ORDER BY x.id, x.lease_id, x.n
),
moved AS (
    DELETE FROM readpast_job AS j
    USING items AS i
    WHERE j.id = i.id
      AND j.lease_id = i.lease_id
      -- the lease still runs (database clock): an expired one is lost, swept or not
      AND j.lease_expires_at > now()
      -- held: LEASED or PROCESSING, written "> 0" (the hot table holds 0, 1, 2, 6 and 7, and 6 and 7 have no lease) so
      -- that each item is a primary-key probe; "IN (1, 2)" matches readpast_job_active's
      -- predicate, and with statistics taken while nothing was leased the plan scanned that
      -- whole index (every leased job and every dead entry since the last VACUUM) per batch
      AND j.status > 0
      -- a job of a batch, or one that others wait on, is completed by job_complete_many with its
      -- settlement, in a transaction (ClaimPath): this one statement leaves it alone
      AND j.batch_id IS NULL AND NOT j.has_dependents
    RETURNING j.*, i.result AS new_result
),
archived AS (
    -- kept in the archive unless its queue deletes succeeded jobs (onSuccess delete; this
    -- statement moves no job of a batch and none that others wait on)
    -- include: moved_into.sql
    -- with into: readpast_job_archive
    -- with from: moved AS m
    -- with status: 3
    -- with result: new_result
    -- with modified_by: COALESCE(:modified_by, modified_by)
    WHERE NOT EXISTS (SELECT 1 FROM readpast_queue AS q WHERE q.name = m.queue AND q.delete_succeeded)
),
hook AS (
    -- the completion webhook (job's URL, else the queue's), in this same transaction
    INSERT INTO readpast_webhook (job_id, queue, event, url)
    SELECT m.id, m.queue, 'job.succeeded', COALESCE(m.webhook_url, q.webhook_url)
    FROM moved AS m
    LEFT JOIN readpast_queue AS q ON q.name = m.queue
    WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL
),
eligible AS (
    SELECT q.name, q.lease_seconds
    FROM readpast_queue AS q
    WHERE NOT q.paused
      AND q.active
      AND q.max_workers IS NULL
      AND q.rate_limit IS NULL -- rate-limited queues are claimed under their queue lock
      AND NOT q.fair -- as are fair queues (job_claim_fair)
      AND (CAST(:queues AS jsonb) IS NULL
           OR q.name IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))
),
multi AS (
    SELECT count(*) > 1 AS yes FROM eligible AS m
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
            LIMIT :limit
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
        LIMIT CASE WHEN (SELECT yes FROM multi) THEN COALESCE(sh.n, 0) ELSE :limit END
        FOR UPDATE SKIP LOCKED
    ) AS c
    ORDER BY c.priority DESC, c.due_at, c.id
    LIMIT :limit
),
claimed AS (
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
)
SELECT
    CASE WHEN c.n IS NULL OR c.n = 1 THEN
        (SELECT CAST(COALESCE(json_agg(json_build_array(a.id, a.queue, a.lease_id)), '[]') AS text) FROM moved AS a)
    END AS acked,
    c.*
FROM (SELECT 1 AS one) AS o
LEFT JOIN (SELECT row_number() OVER () AS n, k.* FROM claimed AS k) AS c ON true
