-- The expiry sweeper: up to :limit PENDING jobs (due, or scheduled for later) whose expiresAt has passed (database clock)
-- never start: they move to the dead-letter table as DEAD, and their webhook (the job's URL,
-- else the queue's) goes into the outbox, in this same statement. Rows a claim holds are
-- skipped (and the claim itself never takes an expired job). Returns their ids and queues.
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id IN (
        SELECT e.id FROM readpast_job AS e
        WHERE e.status IN (0, 6)
          AND e.expires_at IS NOT NULL
          AND e.expires_at <= now()
        ORDER BY e.expires_at
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    )
      AND status IN (0, 6)
    RETURNING *
),
hook AS (
    INSERT INTO readpast_webhook (job_id, queue, event, url)
    SELECT m.id, m.queue, 'job.dead', COALESCE(m.webhook_url, q.webhook_url)
    FROM moved AS m
    LEFT JOIN readpast_queue AS q ON q.name = m.queue
    WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL
)
INSERT INTO readpast_job_dead (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, lease_id, errors, webhook_url, group_key, traceparent, tracestate, fairness_key, batch_id, has_dependents
)
SELECT id, queue, type, payload, tags, idempotency_key, priority, 4, attempt, max_attempts,
       due_at, worker_id, progress, 'expired: not started before its expiresAt', NULL, created_by,
       modified_by, created_at, started_at, now(), now(), NULL, errors, webhook_url, group_key, traceparent, tracestate, fairness_key, batch_id, has_dependents
FROM moved
RETURNING id, queue, batch_id, has_dependents
