-- Babelfish only (SqlServerDialect.BABELFISH): job_claim_fair's write as in
-- include/fair_claim_update.sql, with the rows in WHERE id IN (...) (Babelfish runs an UPDATE
-- ... FROM ... JOIN as a subquery for every row of the target: include/babelfish/claim_update.sql).
UPDATE readpast_job
SET
    status = 1,
    attempt = attempt + 1,
    worker_id = @worker_id,
    lease_id = NEWID(),
    lease_seconds = ISNULL(
        @lease_seconds,
        ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = readpast_job.queue), @default_lease_seconds)
    ),
    -- a job with timeoutSeconds: its lease never runs past its deadline
    lease_expires_at = DATEADD(
        SECOND,
        CASE
            WHEN timeout_seconds < ISNULL(
                @lease_seconds,
                ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = readpast_job.queue), @default_lease_seconds)
            ) THEN timeout_seconds
            ELSE ISNULL(
                @lease_seconds,
                ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = readpast_job.queue), @default_lease_seconds)
            )
        END,
        @claim_now
    ),
    deadline_at = DATEADD(SECOND, timeout_seconds, @claim_now),
    heartbeat_at = NULL,
    modified_by = COALESCE(@modified_by, modified_by),
    updated_at = @claim_now
OUTPUT
    inserted.id, inserted.queue, inserted.type, inserted.payload, inserted.tags,
    inserted.idempotency_key, inserted.priority, inserted.status, inserted.attempt,
    inserted.max_attempts, inserted.due_at, inserted.worker_id, inserted.lease_id,
    inserted.lease_seconds, inserted.lease_expires_at, inserted.heartbeat_at, inserted.progress,
    inserted.cancel_requested, inserted.last_error, inserted.created_by, inserted.modified_by,
    inserted.created_at, inserted.started_at, inserted.updated_at, inserted.errors,
    inserted.webhook_url, inserted.expires_at, inserted.group_key, inserted.group_seq,
    inserted.traceparent, inserted.tracestate, inserted.fairness_key,
    inserted.batch_id, inserted.has_dependents, inserted.deps_left,
    inserted.timeout_seconds, inserted.deadline_at
INTO @claimed (
    id, queue, type, payload, tags,
    idempotency_key, priority, status, attempt,
    max_attempts, due_at, worker_id, lease_id,
    lease_seconds, lease_expires_at, heartbeat_at, progress,
    cancel_requested, last_error, created_by, modified_by,
    created_at, started_at, updated_at, errors,
    webhook_url, expires_at, group_key, group_seq,
    traceparent, tracestate, fairness_key,
    batch_id, has_dependents, deps_left,
    timeout_seconds, deadline_at
)
WHERE id IN (SELECT p.id FROM @picked AS p)
    -- re-checked at the update: a row no longer pending is never leased a second time
    AND status = 0;
