-- The holder finished the job: it moves from the hot table to the archive as SUCCEEDED.
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id = :id
      AND lease_id = CAST(:lease_id AS uuid)
      AND status IN (1, 2)
    RETURNING *
)
INSERT INTO readpast_job_archive (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, lease_id, errors
)
SELECT id, queue, type, payload, tags, idempotency_key, priority, 3, attempt, max_attempts,
       due_at, worker_id, progress, last_error, :result, created_by, COALESCE(:modified_by, modified_by), created_at,
       started_at, now(), now(), lease_id, errors
FROM moved
RETURNING *
