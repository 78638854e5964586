-- Cancel a job nobody holds: a PENDING job moves from the hot table to the archive as
-- CANCELLED (5) at once, with @modified_by. No row means the job is not pending (any more).
-- The deleted row goes OUTPUT ... INTO a table variable (never a bare OUTPUT), is inserted
-- into the archive from there, and the archived row is read back as the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @moved TABLE (
    id bigint NOT NULL PRIMARY KEY,
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    type nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    payload nvarchar(max) NOT NULL,
    tags nvarchar(max) NULL,
    idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
    priority int NOT NULL,
    status tinyint NOT NULL,
    attempt int NOT NULL,
    max_attempts int NOT NULL,
    due_at datetime2(6) NOT NULL,
    worker_id nvarchar(200) NULL,
    lease_id uniqueidentifier NULL,
    lease_seconds int NULL,
    lease_expires_at datetime2(6) NULL,
    heartbeat_at datetime2(6) NULL,
    progress nvarchar(max) NULL,
    cancel_requested bit NOT NULL,
    last_error nvarchar(max) NULL,
    created_by nvarchar(200) NULL,
    modified_by nvarchar(200) NULL,
    created_at datetime2(6) NOT NULL,
    started_at datetime2(6) NULL,
    updated_at datetime2(6) NOT NULL,
    errors nvarchar(max) NULL,
    webhook_url nvarchar(2000) NULL,
    group_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL
);

DELETE FROM readpast_job
OUTPUT
    deleted.id, deleted.queue, deleted.type, deleted.payload, deleted.tags,
    deleted.idempotency_key, deleted.priority, deleted.status, deleted.attempt,
    deleted.max_attempts, deleted.due_at, deleted.worker_id, deleted.lease_id,
    deleted.lease_seconds, deleted.lease_expires_at, deleted.heartbeat_at, deleted.progress,
    deleted.cancel_requested, deleted.last_error, deleted.created_by, deleted.modified_by,
    deleted.created_at, deleted.started_at, deleted.updated_at, deleted.errors, deleted.webhook_url, deleted.group_key
INTO @moved (
    id, queue, type, payload, tags,
    idempotency_key, priority, status, attempt,
    max_attempts, due_at, worker_id, lease_id,
    lease_seconds, lease_expires_at, heartbeat_at, progress,
    cancel_requested, last_error, created_by, modified_by,
    created_at, started_at, updated_at, errors, webhook_url, group_key
)
WHERE id = @id
    AND status = 0;

INSERT INTO readpast_job_archive (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, errors, webhook_url, group_key
)
SELECT
    m.id, m.queue, m.type, m.payload, m.tags, m.idempotency_key, m.priority, 5, m.attempt,
    m.max_attempts, m.due_at, m.worker_id, m.progress, m.last_error, NULL, m.created_by,
    @modified_by, m.created_at, m.started_at, SYSUTCDATETIME(), SYSUTCDATETIME(), m.errors, m.webhook_url, m.group_key
FROM @moved AS m;

SELECT a.*
FROM readpast_job_archive AS a
INNER JOIN @moved AS m ON a.id = m.id;
