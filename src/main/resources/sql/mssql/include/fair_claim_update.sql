-- job_claim_fair's write: the rows in @picked (locked by this transaction) become LEASED, as
-- include/claim_update.sql leases the plain claim's; reached by primary-key seek (ROWLOCK,
-- READPAST, FORCESEEK on the alias), re-checked as pending, returned through OUTPUT ... INTO;
-- stamped with the claim's one time (@claim_now), the one its per-key window was taken from.
UPDATE t
SET
    t.status = 1,
    t.attempt = t.attempt + 1,
    t.worker_id = @worker_id,
    t.lease_id = NEWID(),
    t.lease_seconds = ISNULL(
        @lease_seconds,
        ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = t.queue), @default_lease_seconds)
    ),
    -- a job with timeoutSeconds: its lease never runs past its deadline
    t.lease_expires_at = DATEADD(
        SECOND,
        CASE
            WHEN t.timeout_seconds < ISNULL(
                @lease_seconds,
                ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = t.queue), @default_lease_seconds)
            ) THEN t.timeout_seconds
            ELSE ISNULL(
                @lease_seconds,
                ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = t.queue), @default_lease_seconds)
            )
        END,
        @claim_now
    ),
    t.deadline_at = DATEADD(SECOND, t.timeout_seconds, @claim_now),
    t.heartbeat_at = NULL,
    t.modified_by = COALESCE(@modified_by, t.modified_by),
    t.updated_at = @claim_now
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
FROM readpast_job AS t WITH (ROWLOCK, READPAST, FORCESEEK)
INNER JOIN @picked AS p ON t.id = p.id
-- re-checked at the update: a row no longer pending is never leased a second time
WHERE t.status = 0;
