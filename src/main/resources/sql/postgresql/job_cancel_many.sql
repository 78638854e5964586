-- Cancels the jobs :ids (a JSON array) that nobody holds (PENDING, scheduled or WAITING):
-- they move to the archive as CANCELLED with :reason as their last error. Rows a claim holds
-- right now are waited for and then left alone (they are LEASED by then).
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id IN (SELECT CAST(x AS bigint) FROM jsonb_array_elements_text(CAST(:ids AS jsonb)) AS x)
      AND status IN (0, 6, 7)
    RETURNING *
)
INSERT INTO readpast_job_archive (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, errors, webhook_url, group_key, traceparent, tracestate, fairness_key,
    batch_id, has_dependents
)
SELECT id, queue, type, payload, tags, idempotency_key, priority, 5, attempt, max_attempts,
       due_at, worker_id, progress, COALESCE(:reason, last_error), NULL, created_by, COALESCE(:modified_by, modified_by),
       created_at, started_at, now(), now(), errors, webhook_url, group_key, traceparent, tracestate, fairness_key,
       batch_id, has_dependents
FROM moved
RETURNING id, queue, batch_id, has_dependents
