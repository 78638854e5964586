-- A job wherever it lives: the hot table, the archive or the dead-letter table. Columns a
-- table lacks come back as typed NULLs (cancel_requested as 0) so the UNION ALL lines up.
-- Hot rows carry the backoff settings of their queue for the retry decision (NULL when the
-- queue row is missing, and in the archive and dead-letter branches). deps_left (parents not
-- settled yet) is 0 for a finished job.
SET NOCOUNT ON;
SET XACT_ABORT ON;

SELECT
    j.id, j.queue, j.type, j.payload, j.tags, j.idempotency_key, j.priority, j.status,
    j.attempt, j.max_attempts, j.due_at, j.worker_id, j.lease_id, j.lease_seconds,
    j.lease_expires_at, j.heartbeat_at, j.progress, j.cancel_requested, j.last_error, j.errors,
    CAST(NULL AS nvarchar(max)) AS result, j.created_by, j.modified_by, j.created_at,
    j.started_at, j.updated_at, CAST(NULL AS datetime2(6)) AS finished_at,
    q.backoff_base_ms, q.backoff_cap_ms, j.webhook_url, j.expires_at, j.group_key, j.traceparent, j.tracestate, j.fairness_key,
    j.batch_id, j.has_dependents, j.deps_left, j.timeout_seconds, j.deadline_at,
    j.retry_policy
FROM readpast_job AS j
LEFT JOIN readpast_queue AS q ON j.queue = q.name
WHERE j.id = @id
UNION ALL
SELECT
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, lease_id, NULL, NULL, NULL, progress, CAST(0 AS bit),
    last_error, errors, result, created_by, modified_by, created_at, started_at, updated_at, finished_at,
    CAST(NULL AS bigint), CAST(NULL AS bigint), webhook_url, CAST(NULL AS datetime2(6)), group_key, traceparent, tracestate, fairness_key,
    batch_id, has_dependents, 0, timeout_seconds, CAST(NULL AS datetime2(6)),
    retry_policy
FROM readpast_job_archive
WHERE id = @id
UNION ALL
SELECT
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, lease_id, NULL, NULL, NULL, progress, CAST(0 AS bit),
    last_error, errors, result, created_by, modified_by, created_at, started_at, updated_at, finished_at,
    CAST(NULL AS bigint), CAST(NULL AS bigint), webhook_url, CAST(NULL AS datetime2(6)), group_key, traceparent, tracestate, fairness_key,
    batch_id, has_dependents, 0, timeout_seconds, CAST(NULL AS datetime2(6)),
    retry_policy
FROM readpast_job_dead
WHERE id = @id;
