-- Batch acknowledgement: every item whose lease is held moves from the hot table to the
-- archive as SUCCEEDED (3), in one batch. @items is a JSON array of objects {"id": number,
-- "lease_id": UUID string, "result": JSON text or null}. Returns the ids that were completed
-- (one result set, in id order); the caller classifies the rest.
-- The items are parsed into a table variable first: id and lease id with JSON_VALUE (short
-- values; an id or lease id that does not convert matches nothing and is dropped), the
-- result with OPENJSON over the item, whose value column is nvarchar(max) (JSON_VALUE would
-- cut a result longer than 4000 characters to NULL). Items repeated with the same id and
-- lease id count once (the first one wins). Then one DELETE joined to the items, guarded by
-- id, lease id and status, seeking the primary key row by row (FORCESEEK), sends the rows
-- OUTPUT ... INTO a table variable (never a bare OUTPUT), from which they are inserted into
-- the archive with their results, joined back to the items by id and lease id. (The OUTPUT
-- names only deleted columns: Babelfish loses a joined table named in an OUTPUT list.)
-- Completion webhooks (the job's URL, else its queue's) go into the outbox
-- (readpast_webhook) in the same batch.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @item TABLE (
    id bigint NOT NULL,
    lease_id uniqueidentifier NOT NULL,
    result nvarchar(max) NULL,
    PRIMARY KEY (id, lease_id)
);

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

INSERT INTO @item (id, lease_id, result)
SELECT
    x.id,
    x.lease_id,
    x.result
FROM (
    SELECT
        k.id,
        k.lease_id,
        r.result,
        ROW_NUMBER() OVER (
            PARTITION BY k.id, k.lease_id
            ORDER BY CAST(i.[key] AS int)
        ) AS n
    FROM OPENJSON(@items) AS i
    CROSS APPLY (
        SELECT
            TRY_CONVERT(bigint, JSON_VALUE(i.value, '$.id')) AS id,
            TRY_CONVERT(uniqueidentifier, JSON_VALUE(i.value, '$.lease_id')) AS lease_id
    ) AS k
    OUTER APPLY (
        SELECT TOP (1) f.value AS result
        FROM OPENJSON(i.value) AS f
        WHERE f.[key] = N'result'
    ) AS r
) AS x
WHERE x.id IS NOT NULL
    AND x.lease_id IS NOT NULL
    AND x.n = 1;

DELETE j
OUTPUT
    deleted.id, deleted.queue, deleted.type, deleted.payload, deleted.tags,
    deleted.idempotency_key, deleted.priority, deleted.status, deleted.attempt,
    deleted.max_attempts, deleted.due_at, deleted.worker_id, deleted.lease_id,
    deleted.lease_seconds, deleted.lease_expires_at, deleted.heartbeat_at, deleted.progress,
    deleted.cancel_requested, deleted.last_error, deleted.created_by, deleted.modified_by,
    deleted.created_at, deleted.started_at, deleted.updated_at, deleted.errors, deleted.webhook_url,
    deleted.group_key
INTO @moved (
    id, queue, type, payload, tags,
    idempotency_key, priority, status, attempt,
    max_attempts, due_at, worker_id, lease_id,
    lease_seconds, lease_expires_at, heartbeat_at, progress,
    cancel_requested, last_error, created_by, modified_by,
    created_at, started_at, updated_at, errors, webhook_url, group_key
)
FROM readpast_job AS j WITH (ROWLOCK, FORCESEEK)
INNER JOIN @item AS i
    ON
        j.id = i.id
        AND j.lease_id = i.lease_id
WHERE j.status IN (1, 2);

INSERT INTO readpast_job_archive (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, worker_id, progress, last_error, result, created_by, modified_by, created_at,
    started_at, updated_at, finished_at, lease_id, errors, webhook_url, group_key
)
SELECT
    m.id, m.queue, m.type, m.payload, m.tags, m.idempotency_key, m.priority, 3, m.attempt,
    m.max_attempts, m.due_at, m.worker_id, m.progress, m.last_error, i.result, m.created_by,
    COALESCE(@modified_by, m.modified_by), m.created_at, m.started_at, SYSUTCDATETIME(), SYSUTCDATETIME(), m.lease_id,
    m.errors, m.webhook_url, m.group_key
FROM @moved AS m
INNER JOIN @item AS i ON m.id = i.id AND m.lease_id = i.lease_id;

-- the completion webhook (the job's URL, else its queue's) goes into the outbox in this same
-- transaction
INSERT INTO readpast_webhook (job_id, queue, event, url)
SELECT
    m.id,
    m.queue,
    N'job.succeeded',
    COALESCE(m.webhook_url, q.webhook_url)
FROM @moved AS m
LEFT JOIN readpast_queue AS q ON m.queue = q.name
WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL;

SELECT
    m.id,
    m.queue
FROM @moved AS m
ORDER BY m.id ASC;
