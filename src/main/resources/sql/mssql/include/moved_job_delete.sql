-- Deletes the @target rows (see moved_job.sql) from the hot table into @moved. The including
-- statement holds their locks already, so this waits for nobody; every row is reached by a
-- seek on the primary key (FORCESEEK), nothing is scanned. The deleted rows go OUTPUT ... INTO
-- the table variable, never a bare OUTPUT. (The OUTPUT names deleted columns only: Babelfish
-- loses a joined table named in an OUTPUT list.)
DELETE j
OUTPUT
    deleted.id, deleted.queue, deleted.type, deleted.payload, deleted.tags,
    deleted.idempotency_key, deleted.priority, deleted.status, deleted.attempt,
    deleted.max_attempts, deleted.due_at, deleted.worker_id, deleted.lease_id,
    deleted.lease_seconds, deleted.lease_expires_at, deleted.heartbeat_at, deleted.progress,
    deleted.cancel_requested, deleted.last_error, deleted.created_by, deleted.modified_by,
    deleted.created_at, deleted.started_at, deleted.updated_at, deleted.errors, deleted.webhook_url,
    deleted.group_key, deleted.traceparent, deleted.tracestate, deleted.fairness_key,
    deleted.batch_id, deleted.has_dependents, deleted.timeout_seconds, deleted.retry_policy
INTO @moved (
    id, queue, type, payload, tags,
    idempotency_key, priority, status, attempt,
    max_attempts, due_at, worker_id, lease_id,
    lease_seconds, lease_expires_at, heartbeat_at, progress,
    cancel_requested, last_error, created_by, modified_by,
    created_at, started_at, updated_at, errors, webhook_url, group_key, traceparent, tracestate, fairness_key,
    batch_id, has_dependents, timeout_seconds, retry_policy
)
FROM readpast_job AS j WITH (ROWLOCK, FORCESEEK)
INNER JOIN @target AS t ON j.id = t.id;
