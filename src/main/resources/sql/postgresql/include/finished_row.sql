-- A template (StatementCatalog): the jobs a statement took out of the hot table (slot from, a
-- relation with the hot table's columns) as they are finished, in finished_columns.sql's order:
-- the status given (slot status), now as their update and finish time, and what a mover may set
-- (slots last_error, result, modified_by, lease_id and errors; each defaults to the moved row's,
-- result to NULL).
SELECT id, queue, type, payload, tags, idempotency_key, priority, CAST({{status}} AS smallint) AS status,
       attempt, max_attempts, due_at, worker_id, progress, {{last_error|last_error}} AS last_error,
       {{result|CAST(NULL AS text)}} AS result, created_by, {{modified_by|modified_by}} AS modified_by,
       created_at, started_at, now() AS updated_at, now() AS finished_at, {{lease_id|lease_id}} AS lease_id,
       {{errors|errors}} AS errors, webhook_url, group_key, traceparent, tracestate, fairness_key,
       batch_id, has_dependents, timeout_seconds, retry_policy
FROM {{from}}
