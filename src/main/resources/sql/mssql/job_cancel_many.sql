-- Cancels the jobs @ids (a JSON array of ids) that nobody holds (PENDING, scheduled or
-- WAITING): they move from the hot table to the archive as CANCELLED (5) with @reason as their
-- last error (NULL: the last error stays) and @modified_by (NULL: unchanged). Rows a claim
-- holds right now are waited for (no READPAST: a cancel skips nobody) and then left alone
-- (they are LEASED by then). The ids go into a table variable first, so that each row is
-- reached by a seek on the primary key; the rows are locked by the guarded read (UPDLOCK,
-- READCOMMITTEDLOCK: under RCSI too the status checked is the current one), moved
-- (include/moved_job_delete.sql) and archived, all in one batch. Returns id, queue, batch_id
-- and has_dependents of each cancelled job (one result set, in id order): the caller settles
-- their batches and dependents in the same transaction.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @cancel_id TABLE (id bigint NOT NULL PRIMARY KEY);
-- include: moved_job.sql

INSERT INTO @cancel_id (id)
SELECT DISTINCT TRY_CONVERT(bigint, e.value)
FROM OPENJSON(@ids) AS e
WHERE TRY_CONVERT(bigint, e.value) IS NOT NULL;

INSERT INTO @target (id)
SELECT j.id
FROM readpast_job AS j WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK, FORCESEEK)
INNER JOIN @cancel_id AS c ON j.id = c.id
WHERE j.status IN (0, 6, 7);

-- include: moved_job_delete.sql

INSERT INTO readpast_job_archive (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, errors, webhook_url, group_key, traceparent, tracestate, fairness_key,
    batch_id, has_dependents
)
SELECT
    m.id, m.queue, m.type, m.payload, m.tags, m.idempotency_key, m.priority, 5, m.attempt,
    m.max_attempts, m.due_at, m.worker_id, m.progress, COALESCE(@reason, m.last_error), NULL, m.created_by,
    COALESCE(@modified_by, m.modified_by), m.created_at, m.started_at, SYSUTCDATETIME(), SYSUTCDATETIME(),
    m.errors, m.webhook_url, m.group_key, m.traceparent, m.tracestate, m.fairness_key,
    m.batch_id, m.has_dependents
FROM @moved AS m;

SELECT
    m.id,
    m.queue,
    m.batch_id,
    m.has_dependents
FROM @moved AS m
ORDER BY m.id ASC;
