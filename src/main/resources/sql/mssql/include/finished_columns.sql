-- A template (StatementCatalog), a list, not a statement: the columns of a finished job, the same in readpast_job_archive and readpast_job_dead, in the
-- order finished_row.sql gives them: the one list every move out of the hot table writes
-- (StatementCatalog; MovedColumnsTest holds it to both tables).
id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
started_at, updated_at, finished_at, lease_id, errors, webhook_url, group_key, traceparent,
tracestate, fairness_key, batch_id, has_dependents, timeout_seconds, retry_policy
