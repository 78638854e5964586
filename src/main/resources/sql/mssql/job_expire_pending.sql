-- The expiry sweeper: up to @limit PENDING jobs whose expiresAt has passed (database clock)
-- never start: they move to the dead-letter table as DEAD, and their webhook (the job's URL,
-- else the queue's) goes into the outbox, in this same batch. Candidates are read from the
-- filtered expiry index, skipping rows a claim holds (UPDLOCK, READPAST, ROWLOCK under READ
-- COMMITTED; READCOMMITTEDLOCK against RCSI row versions); the DELETE checks the status again.
-- The deleted rows go OUTPUT ... INTO a table variable (never a bare OUTPUT). Returns their ids
-- and queues.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @moved TABLE (
    id bigint NOT NULL PRIMARY KEY,
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    type nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    payload nvarchar(max) NOT NULL,
    tags nvarchar(max) NULL,
    idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
    priority int NOT NULL,
    attempt int NOT NULL,
    max_attempts int NOT NULL,
    due_at datetime2(6) NOT NULL,
    worker_id nvarchar(200) NULL,
    progress nvarchar(max) NULL,
    created_by nvarchar(200) NULL,
    modified_by nvarchar(200) NULL,
    created_at datetime2(6) NOT NULL,
    started_at datetime2(6) NULL,
    webhook_url nvarchar(2000) NULL,
    group_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL
);

DELETE j
OUTPUT
    deleted.id, deleted.queue, deleted.type, deleted.payload, deleted.tags,
    deleted.idempotency_key, deleted.priority, deleted.attempt, deleted.max_attempts,
    deleted.due_at, deleted.worker_id, deleted.progress, deleted.created_by, deleted.modified_by,
    deleted.created_at, deleted.started_at, deleted.webhook_url, deleted.group_key
INTO @moved (
    id, queue, type, payload, tags,
    idempotency_key, priority, attempt, max_attempts,
    due_at, worker_id, progress, created_by, modified_by,
    created_at, started_at, webhook_url, group_key
)
FROM readpast_job AS j WITH (ROWLOCK)
INNER JOIN (
    -- a derived table, not WITH: Babelfish overflows its stack on WITH ... DELETE ... OUTPUT INTO
    SELECT TOP (@limit) e.id
    FROM readpast_job AS e WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE e.status = 0
        AND e.expires_at IS NOT NULL
        AND e.expires_at <= SYSUTCDATETIME()
    ORDER BY e.expires_at ASC
) AS x ON j.id = x.id
WHERE j.status = 0;

INSERT INTO readpast_job_dead (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, lease_id, webhook_url, group_key
)
SELECT
    m.id, m.queue, m.type, m.payload, m.tags, m.idempotency_key, m.priority, 4, m.attempt,
    m.max_attempts, m.due_at, m.worker_id, m.progress, N'expired: not started before its expiresAt',
    NULL, m.created_by, m.modified_by, m.created_at, m.started_at, SYSUTCDATETIME(),
    SYSUTCDATETIME(), NULL, m.webhook_url, m.group_key
FROM @moved AS m;

INSERT INTO readpast_webhook (job_id, queue, event, url)
SELECT
    m.id,
    m.queue,
    N'job.dead',
    COALESCE(m.webhook_url, q.webhook_url)
FROM @moved AS m
LEFT JOIN readpast_queue AS q ON m.queue = q.name
WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL;

SELECT
    m.id,
    m.queue
FROM @moved AS m
ORDER BY m.id ASC;
