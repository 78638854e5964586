-- Retries used up or a fatal error: the job moves from the hot table to the dead-letter
-- table as DEAD (4) with @error as its last error, appended to errors (the last 20 attempts'
-- errors, a JSON array). With @expired_only = 1 (the lease
-- sweeper) only if the lease has expired by the database clock. Guarded by id, lease id and
-- status: no row means the lease was lost. (@lease_id is a UUID string; one that is not a
-- UUID matches nothing.) The deleted row goes OUTPUT ... INTO a table variable (never a bare
-- OUTPUT), is inserted into the dead-letter table from there, and the dead row is read back
-- as the one result set. Its webhook, if the job or its queue names one, goes into the
-- outbox (readpast_webhook) in the same batch.
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
    AND lease_id = TRY_CONVERT(uniqueidentifier, @lease_id)
    AND status IN (1, 2)
    AND cancel_requested = 0
    AND (@expired_only = 0 OR lease_expires_at <= SYSUTCDATETIME());

INSERT INTO readpast_job_dead (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, lease_id, errors, webhook_url, group_key
)
SELECT
    m.id, m.queue, m.type, m.payload, m.tags, m.idempotency_key, m.priority, 4, m.attempt,
    m.max_attempts, m.due_at, m.worker_id, m.progress, @error, NULL, m.created_by,
    COALESCE(@modified_by, m.modified_by), m.created_at, m.started_at, SYSUTCDATETIME(), SYSUTCDATETIME(), m.lease_id,
    (
        SELECT N'[' + STRING_AGG(e.entry, N',') WITHIN GROUP (ORDER BY e.n ASC) + N']'
        FROM (
            SELECT
                CAST(x.[key] AS int) AS n,
                x.value AS entry
            FROM OPENJSON(m.errors) AS x
            UNION ALL
            SELECT
                2147483647 AS n,
                CAST(N'{"attempt":' AS nvarchar(max)) + CAST(m.attempt AS nvarchar(11))
                + N',"at":"' + REPLACE(CONVERT(nvarchar(33), SYSUTCDATETIME(), 127), N' ', N'T') + N'Z"'
                + N',"workerId":'
                + COALESCE(N'"' + STRING_ESCAPE(m.worker_id, 'json') + N'"', N'null')
                + N',"error":"' + STRING_ESCAPE(@error, 'json') + N'"}' AS entry
        ) AS e
        WHERE e.n > (SELECT COUNT(*) FROM OPENJSON(m.errors)) - 20
    ),
    m.webhook_url, m.group_key
FROM @moved AS m;

-- the completion webhook (the job's URL, else its queue's) goes into the outbox in this same
-- transaction
INSERT INTO readpast_webhook (job_id, queue, event, url)
SELECT
    m.id,
    m.queue,
    N'job.dead',
    COALESCE(m.webhook_url, q.webhook_url)
FROM @moved AS m
LEFT JOIN readpast_queue AS q ON m.queue = q.name
WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL;

SELECT d.*
FROM readpast_job_dead AS d
INNER JOIN @moved AS m ON d.id = m.id;
