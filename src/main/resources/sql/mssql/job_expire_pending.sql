-- The expiry sweeper: up to @limit PENDING jobs (due, or scheduled for later) whose expiresAt
-- has passed (database clock) never start: they move to the dead-letter table as DEAD, and
-- their webhook (the job's URL, else the queue's) goes into the outbox, in this same batch.
-- The candidates are read from the filtered expiry index without keeping any lock (READPAST
-- with S locks, released at once), then locked by primary key with UPDLOCK and READPAST, the
-- status and expiry checked again: a row a claim holds is skipped, never waited for, and the
-- sweeper takes no index lock before the row's own, so it cannot lock in the opposite order to
-- a claim (reviews/tsql-review.md M5). Returns the ids, queues, batch ids and has_dependents
-- of the expired jobs (the caller settles their batches and dependents).
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @webhook_event nvarchar(20) = N'job.dead';
DECLARE @candidate TABLE (id bigint NOT NULL PRIMARY KEY);
-- include: moved_job.sql

INSERT INTO @candidate (id)
SELECT TOP (@limit) e.id
FROM readpast_job AS e WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_expiry), FORCESEEK)
WHERE e.status IN (0, 6)
    AND e.expires_at IS NOT NULL
    AND e.expires_at <= SYSUTCDATETIME()
ORDER BY e.expires_at ASC;

INSERT INTO @target (id)
SELECT j.id
FROM readpast_job AS j WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, FORCESEEK)
INNER JOIN @candidate AS c ON j.id = c.id
WHERE j.status IN (0, 6)
    AND j.expires_at <= SYSUTCDATETIME();

-- include: moved_job_delete.sql

INSERT INTO readpast_job_dead (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, lease_id, errors, webhook_url, group_key, traceparent, tracestate, fairness_key,
    batch_id, has_dependents
)
SELECT
    m.id, m.queue, m.type, m.payload, m.tags, m.idempotency_key, m.priority, 4, m.attempt,
    m.max_attempts, m.due_at, m.worker_id, m.progress, N'expired: not started before its expiresAt',
    NULL, m.created_by, m.modified_by, m.created_at, m.started_at, SYSUTCDATETIME(),
    SYSUTCDATETIME(), NULL, m.errors, m.webhook_url, m.group_key, m.traceparent, m.tracestate, m.fairness_key,
    m.batch_id, m.has_dependents
FROM @moved AS m;

-- include: moved_job_webhook.sql

SELECT
    m.id,
    m.queue,
    m.batch_id,
    m.has_dependents
FROM @moved AS m
ORDER BY m.id ASC;
