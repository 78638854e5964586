-- A cancel-requested job comes back from its worker (fail, release) or its lease expires:
-- it moves to the archive as CANCELLED. Guarded like every lease-bound change. A given :error
-- becomes last_error and is appended to errors (a release gives none).
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id = :id
      AND lease_id = CAST(:lease_id AS uuid)
      AND status IN (1, 2)
      AND cancel_requested
      -- the sweeper (:expired_only) settles expired leases only; the holder, running ones only
      AND (CASE WHEN CAST(:expired_only AS boolean) THEN lease_expires_at <= now() ELSE lease_expires_at > now() END)
    RETURNING *
)
INSERT INTO readpast_job_archive (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, lease_id, errors, webhook_url, group_key, traceparent, tracestate, fairness_key, batch_id, has_dependents
)
SELECT id, queue, type, payload, tags, idempotency_key, priority, 5, attempt, max_attempts,
       due_at, worker_id, progress, COALESCE(:error, last_error), NULL, created_by, COALESCE(:modified_by, modified_by),
       created_at, started_at, now(), now(), lease_id,
       CASE WHEN CAST(:error AS text) IS NULL THEN moved.errors ELSE (
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
           ) END,
       webhook_url, group_key, traceparent, tracestate, fairness_key, batch_id, has_dependents
FROM moved
RETURNING *
