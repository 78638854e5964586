-- A DEAD job (dead-letter table) or a CANCELLED one (archive, status 5 only) goes back to
-- the hot table as PENDING, due now, attempts reset (kept when @keep_attempts = 1: the next
-- claim counts on from them), keeping its id (the id column only has
-- a sequence default, so the explicit id needs no IDENTITY_INSERT); @payload (JSON text)
-- replaces the payload when not NULL, @queue (an existing queue, the caller checked it) the queue when not NULL; modified_by becomes @modified_by; its errors (earlier
-- attempts) stay. No row means there was no such dead or cancelled job. A live job holding the same idempotency key by now
-- makes the insert fail with duplicate key 2601, and the whole batch rolls back (XACT_ABORT).
-- The deleted rows go OUTPUT ... INTO a table variable (never a bare OUTPUT), the new hot row
-- is inserted from there, and read back as the one result set. A grouped job goes to the end
-- of its group: a new group_seq (the caller holds the group's lock, job_group_lock). A job of
-- a batch stays in it (batch_id kept): the caller holds the batch's lock and counts the job
-- there again (docs/batches.md).
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @source TABLE (
    id bigint NOT NULL PRIMARY KEY,
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    type nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    payload nvarchar(max) NOT NULL,
    tags nvarchar(max) NULL,
    idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
    priority int NOT NULL,
    attempt int NOT NULL,
    max_attempts int NOT NULL,
    last_error nvarchar(max) NULL,
    errors nvarchar(max) NULL,
    created_by nvarchar(200) NULL,
    created_at datetime2(6) NOT NULL,
    webhook_url nvarchar(2000) NULL,
    group_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
    traceparent varchar(55) NULL,
    tracestate varchar(512) NULL,
    fairness_key nvarchar(200) NULL,
    batch_id bigint NULL,
    timeout_seconds int NULL,
    retry_policy nvarchar(max) NULL
);

DECLARE @group_key nvarchar(200);
DECLARE @group_seq bigint;

DECLARE @new_job TABLE (id bigint NOT NULL PRIMARY KEY);

DELETE FROM readpast_job_dead
OUTPUT
    deleted.id, deleted.queue, deleted.type, deleted.payload, deleted.tags,
    deleted.idempotency_key, deleted.priority, deleted.attempt, deleted.max_attempts, deleted.last_error,
    deleted.errors, deleted.created_by, deleted.created_at, deleted.webhook_url, deleted.group_key,
    deleted.traceparent, deleted.tracestate, deleted.fairness_key, deleted.batch_id, deleted.timeout_seconds,
    deleted.retry_policy
INTO @source (
    id, queue, type, payload, tags,
    idempotency_key, priority, attempt, max_attempts, last_error,
    errors, created_by, created_at, webhook_url, group_key, traceparent, tracestate, fairness_key, batch_id,
    timeout_seconds, retry_policy
)
WHERE id = @id;

DELETE FROM readpast_job_archive
OUTPUT
    deleted.id, deleted.queue, deleted.type, deleted.payload, deleted.tags,
    deleted.idempotency_key, deleted.priority, deleted.attempt, deleted.max_attempts, deleted.last_error,
    deleted.errors, deleted.created_by, deleted.created_at, deleted.webhook_url, deleted.group_key,
    deleted.traceparent, deleted.tracestate, deleted.fairness_key, deleted.batch_id, deleted.timeout_seconds,
    deleted.retry_policy
INTO @source (
    id, queue, type, payload, tags,
    idempotency_key, priority, attempt, max_attempts, last_error,
    errors, created_by, created_at, webhook_url, group_key, traceparent, tracestate, fairness_key, batch_id,
    timeout_seconds, retry_policy
)
WHERE id = @id
    AND status = 5;

SELECT @group_key = s.group_key FROM @source AS s;
-- include: next_group_seq.sql

INSERT INTO readpast_job (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, last_error, errors, created_by, modified_by, created_at, updated_at, webhook_url, group_key,
    group_seq, traceparent, tracestate, fairness_key, batch_id, timeout_seconds, retry_policy
)
OUTPUT inserted.id INTO @new_job (id)
SELECT
    s.id, COALESCE(@queue, s.queue), s.type, COALESCE(@payload, s.payload), s.tags, s.idempotency_key,
    s.priority, 0, CASE WHEN @keep_attempts = 1 THEN s.attempt ELSE 0 END, s.max_attempts, SYSUTCDATETIME(), s.last_error, s.errors, s.created_by,
    @modified_by, s.created_at, SYSUTCDATETIME(), s.webhook_url, s.group_key,
    CASE WHEN s.group_key IS NULL THEN NULL ELSE @group_seq END,
    s.traceparent, s.tracestate, s.fairness_key, s.batch_id, s.timeout_seconds, s.retry_policy
FROM @source AS s;

SELECT j.*
FROM readpast_job AS j
INNER JOIN @new_job AS n ON j.id = n.id;
