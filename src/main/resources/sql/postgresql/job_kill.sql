-- Retries used up or a fatal error: the job moves to the dead-letter table as DEAD (unless a
-- cancel was requested meanwhile: then it must end CANCELLED, see job_cancel_leased).
-- :error becomes last_error and is appended to errors (the last :keep_errors attempts' errors). Its
-- webhook (the job's URL, else its queue's) goes into the outbox in the same statement.
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id = :id
      AND lease_id = CAST(:lease_id AS uuid)
      AND status IN (1, 2)
      AND NOT cancel_requested
      -- the sweeper (:expired_only) settles expired leases only; the holder, running ones only
      AND (CASE WHEN CAST(:expired_only AS boolean) THEN lease_expires_at <= now() ELSE lease_expires_at > now() END)
    RETURNING *
),
hook AS (
    -- the completion webhook (job's URL, else the queue's), in this same transaction
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
       due_at, worker_id, progress, :error, NULL, created_by, COALESCE(:modified_by, modified_by), created_at,
       started_at, now(), now(), lease_id,
       (
           SELECT CAST(jsonb_agg(e.entry ORDER BY e.n) AS text)
           FROM jsonb_array_elements(
               COALESCE(CAST(moved.errors AS jsonb), CAST('[]' AS jsonb))
               || jsonb_build_array(jsonb_build_object(
                   'attempt', moved.attempt,
                   'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                   'workerId', moved.worker_id,
                   'error', CAST(:error AS text)))
           ) WITH ORDINALITY AS e(entry, n)
           WHERE e.n > jsonb_array_length(COALESCE(CAST(moved.errors AS jsonb), CAST('[]' AS jsonb)))
                 + 1 - CAST(:keep_errors AS integer)
       ),
       webhook_url, group_key, traceparent, tracestate, fairness_key, batch_id, has_dependents
FROM moved
RETURNING *
