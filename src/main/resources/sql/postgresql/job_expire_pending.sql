-- The expiry sweeper: up to :limit PENDING jobs (due, or scheduled for later) and WAITING ones
-- whose expiresAt has passed (database clock) never start, and neither do up to :limit WAITING
-- jobs enqueued more than :wait_limit_ms ago (readpast.dependencies.wait-limit; 0: no limit):
-- they move to the dead-letter table as DEAD, and their webhook (the job's URL, else the
-- queue's) goes into the outbox, in this same statement. Rows a claim (or a settlement
-- counting off a waiting child) holds are skipped (and the claim itself never takes an expired
-- job). Returns their ids and queues, with batch_id and has_dependents: the caller settles the
-- batches and dependants of the expired jobs, in this transaction.
WITH expired AS (
    SELECT e.id FROM readpast_job AS e
    WHERE e.status IN (0, 6, 7)
      AND e.expires_at IS NOT NULL
      AND e.expires_at <= now()
    ORDER BY e.expires_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
),
waited AS (
    SELECT w.id FROM readpast_job AS w
    WHERE w.status = 7
      AND CAST(:wait_limit_ms AS bigint) > 0
      AND w.created_at <= now() - CAST(:wait_limit_ms AS bigint) * interval '1 millisecond'
    ORDER BY w.created_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
),
moved AS (
    DELETE FROM readpast_job
    WHERE id IN (SELECT x.id FROM expired AS x UNION SELECT y.id FROM waited AS y)
      AND status IN (0, 6, 7)
    RETURNING *
),
hook AS (
    INSERT INTO readpast_webhook (job_id, queue, event, url)
    SELECT m.id, m.queue, 'job.dead', COALESCE(m.webhook_url, q.webhook_url)
    FROM moved AS m
    LEFT JOIN readpast_queue AS q ON q.name = m.queue
    WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL
)
-- include: moved_into.sql
-- with into: readpast_job_dead
-- with from: moved
-- with status: 4
-- with last_error: CASE WHEN expires_at IS NOT NULL AND expires_at <= now() THEN 'expired: not started before its expiresAt' ELSE 'expired: waited longer than readpast.dependencies.wait-limit for its parents' END
-- with lease_id: NULL
RETURNING id, queue, batch_id, has_dependents
