-- Ack and claim, one batch (POST /claim with "ack"): the acknowledged jobs whose lease is held
-- move from the hot table to the archive as SUCCEEDED (exactly as job_complete_many does), then
-- up to @limit claimable jobs of uncapped queues become LEASED (as job_claim does with no
-- capped queue locked; a claim that may reach a capped or rate-limited queue runs
-- job_complete_many, queue_lock_capped and job_claim in one transaction instead). The two
-- parts touch different rows (held leases vs pending jobs). @items is a JSON array of {"id",
-- "lease_id", "result" (JSON text or null)}. Returns one result set: one row per claimed job
-- (job columns, in claim order), or one row of NULL job columns when nothing was claimed; the
-- first row's "acked" is a JSON array of [id, "queue"] of the completed jobs (STRING_AGG over
-- nvarchar(max), so that a long list is not cut at 4000 characters).
-- Ack part: see job_complete_many (completion webhooks go into the outbox in this same batch).
-- Claim part: see job_claim (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX with
-- FORCESEEK on the filtered claim index, derived tables rather than WITH, the status
-- re-checked at the update, expired jobs not claimed, ordered groups; OUTPUT ... INTO a table
-- variable).
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @claimed TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @acked nvarchar(max);

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

UPDATE t
SET
    t.status = 1,
    t.attempt = t.attempt + 1,
    t.worker_id = @worker_id,
    t.lease_id = NEWID(),
    t.lease_seconds = ISNULL(
        @lease_seconds,
        ISNULL((SELECT lq.lease_seconds FROM readpast_queue AS lq WHERE lq.name = t.queue), @default_lease_seconds)
    ),
    t.lease_expires_at = DATEADD(
        SECOND,
        ISNULL(
            @lease_seconds,
            ISNULL((SELECT lq.lease_seconds FROM readpast_queue AS lq WHERE lq.name = t.queue), @default_lease_seconds)
        ),
        SYSUTCDATETIME()
    ),
    t.heartbeat_at = NULL,
    t.modified_by = COALESCE(@modified_by, t.modified_by),
    t.updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @claimed (id)
FROM readpast_job AS t WITH (ROWLOCK)
INNER JOIN (
    -- the best @limit candidates over every eligible queue
    SELECT TOP (@limit) c.id
    FROM (
        -- eligible queues, with their free slots
        SELECT
            q.name,
            @limit AS room
        FROM readpast_queue AS q WITH (READCOMMITTEDLOCK)
        WHERE q.paused = 0
            AND q.active = 1
            -- uncapped and not rate-limited queues only (the others go the locked way)
            AND q.max_workers IS NULL
            AND q.rate_limit IS NULL
            AND (
                @queues IS NULL
                OR q.name IN (SELECT CAST(f.value AS nvarchar(400)) FROM OPENJSON(@queues) AS f)
            )
    ) AS e
    CROSS APPLY (
        -- the queue's due pending rows in claim order, skipping rows other claimers hold
        SELECT TOP (e.room)
            j.id,
            j.priority,
            j.due_at
        FROM readpast_job AS j WITH (
            UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_claim), FORCESEEK
        )
        WHERE j.queue = e.name
            AND j.status = 0
            AND j.due_at <= SYSUTCDATETIME()
            -- expiresAt: never start after it (the expiry sweeper moves such jobs to DEAD)
            AND (j.expires_at IS NULL OR j.expires_at > SYSUTCDATETIME())
            -- ordered groups: a grouped job waits while a job of its group is LEASED or
            -- PROCESSING, or one PENDING comes before it (group_seq: enqueue order). The group
            -- is read with locking reads and no READPAST: a group member another claim is
            -- taking right now is waited for (briefly), not skipped, so that two claims never
            -- both start a job of one group.
            AND (
                j.group_key IS NULL
                OR NOT EXISTS (
                    SELECT 1
                    FROM readpast_job AS g WITH (READCOMMITTEDLOCK)
                    WHERE g.queue = j.queue
                        AND g.group_key = j.group_key
                        AND (g.status IN (1, 2) OR (g.status = 0 AND g.group_seq < j.group_seq))
                )
            )
        ORDER BY j.priority DESC, j.due_at ASC, j.id ASC
    ) AS c
    ORDER BY c.priority DESC, c.due_at ASC, c.id ASC
) AS p ON t.id = p.id
-- Re-checked at the update: whatever plan joins the candidates back to the table, a row that
-- is no longer pending (claimed and committed by another claim between a read and this
-- write) is never leased a second time.
WHERE t.status = 0;

SELECT
    @acked = STRING_AGG(
        CAST(CONCAT(N'[', m.id, N',"', STRING_ESCAPE(m.queue, 'json'), N'"]') AS nvarchar(max)), N','
    )
FROM @moved AS m;

SELECT
    CASE WHEN c.n IS NULL OR c.n = 1 THEN CONCAT(N'[', @acked, N']') END AS acked,
    c.*
FROM (SELECT 1 AS one) AS o
LEFT JOIN (
    SELECT
        ROW_NUMBER() OVER (ORDER BY j.priority DESC, j.due_at ASC, j.id ASC) AS n,
        j.*
    FROM readpast_job AS j
    INNER JOIN @claimed AS k ON j.id = k.id
) AS c ON 1 = 1
ORDER BY c.n ASC;
