-- A template (StatementCatalog): the jobs a statement took out of the hot table (slot from, by
-- default @moved AS m: moved_job.sql) as they are finished, in finished_columns.sql's order: the
-- status given (slot status), now as their update and finish time, and what a mover may set
-- (slots last_error, result, modified_by, lease_id and errors; each defaults to the moved row's,
-- result to NULL), and a WHERE clause to keep only some of them (slot where, default none).
SELECT
    m.id, m.queue, m.type, m.payload, m.tags, m.idempotency_key, m.priority,
    CAST({{status}} AS tinyint) AS status, m.attempt, m.max_attempts, m.due_at, m.worker_id,
    m.progress, {{last_error|m.last_error}} AS last_error,
    {{result|CAST(NULL AS nvarchar(max))}} AS result, m.created_by,
    {{modified_by|m.modified_by}} AS modified_by, m.created_at, m.started_at,
    SYSUTCDATETIME() AS updated_at, SYSUTCDATETIME() AS finished_at,
    {{lease_id|m.lease_id}} AS lease_id, {{errors|m.errors}} AS errors, m.webhook_url, m.group_key,
    m.traceparent, m.tracestate, m.fairness_key, m.batch_id, m.has_dependents,
    m.timeout_seconds, m.retry_policy
FROM {{from|@moved AS m}}
{{where|}}
