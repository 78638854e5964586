-- A cancel-requested job comes back from its worker (fail, release) or its lease expires:
-- it moves to the archive as CANCELLED. Guarded like every lease-bound change.
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id = :id
      AND lease_id = CAST(:lease_id AS uuid)
      AND status IN (1, 2)
      AND cancel_requested
      AND (NOT CAST(:expired_only AS boolean) OR lease_expires_at <= now())
    RETURNING *
)
INSERT INTO readpast_job_archive (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, lease_id, webhook_url, group_key
)
SELECT id, queue, type, payload, tags, idempotency_key, priority, 5, attempt, max_attempts,
       due_at, worker_id, progress, COALESCE(:error, last_error), NULL, created_by, COALESCE(:modified_by, modified_by),
       created_at, started_at, now(), now(), lease_id, webhook_url, group_key
FROM moved
RETURNING *
