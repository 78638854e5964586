-- A job wherever it lives: the hot table, the archive or the dead-letter table. Columns a
-- table lacks come back as typed NULLs (cancel_requested as 0) so the UNION ALL lines up.
SET NOCOUNT ON;
SET XACT_ABORT ON;

SELECT
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, lease_id, lease_seconds, lease_expires_at, heartbeat_at, progress,
    cancel_requested,
    last_error, CAST(NULL AS nvarchar(max)) AS result, created_by, modified_by, created_at,
    started_at, updated_at, CAST(NULL AS datetime2(6)) AS finished_at
FROM readpast_job
WHERE id = @id
UNION ALL
SELECT
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, NULL, NULL, NULL, NULL, progress, CAST(0 AS bit),
    last_error, result, created_by, modified_by, created_at, started_at, updated_at, finished_at
FROM readpast_job_archive
WHERE id = @id
UNION ALL
SELECT
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, NULL, NULL, NULL, NULL, progress, CAST(0 AS bit),
    last_error, result, created_by, modified_by, created_at, started_at, updated_at, finished_at
FROM readpast_job_dead
WHERE id = @id;
