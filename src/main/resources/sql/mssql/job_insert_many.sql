-- Batch enqueue: every job of @jobs in one batch. @jobs is a JSON array of objects
-- {"queue", "type", "payload" (JSON text, as a string), "tags" (JSON text or null),
-- "idempotency_key", "priority", "max_attempts" (null: the queue's, else
-- "default_max_attempts"), "run_at" (ISO-8601 UTC, e.g. 2030-01-01T12:00:00.123456Z, or
-- null), "delay_ms", "created_by", "webhook_url" (or null), "expires_at" (as run_at, or null),
-- "traceparent" and "tracestate" (the W3C trace context the broker checked, or null), "fairness_key", "timeout_seconds", "retry_policy" (JSON text) (or null)}.
-- Returns the inserted rows, each with "ord", its position
-- in @jobs (from 1), in item order.
-- The items are parsed into a table variable (keys and queue names in the columns' binary
-- collation, V5, so that they compare as the tables do): one OPENJSON pass over each item, its
-- members picked by key (JSON_VALUE would cut a payload longer than 4000 characters to NULL).
-- Each item gets its id from the sequence (include/new_job_ids.sql), in item order, so that
-- inserted rows can be matched to their items without OUTPUT naming source columns. A job not
-- due yet is stored as scheduled (6), out of the claim index until a claim promotes it.
-- Missing queue rows are created as in job_insert: an unlocked check first (existing queues
-- take no lock), then an INSERT guarded by NOT EXISTS under UPDLOCK, HOLDLOCK.
-- An item with an idempotency key is inserted only when no earlier item of the batch has the
-- key and no live job holds it: a plain NOT EXISTS, as in job_insert (no HOLDLOCK: a range lock
-- covers whatever the plan reads), with the unique index deciding a race (2601, which the
-- caller retries). The caller reads the holder of a skipped key.
-- New ids go OUTPUT ... INTO a table variable; the rows are read back as the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @item TABLE (
    ord int NOT NULL PRIMARY KEY,
    id bigint NULL,
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    type nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    payload nvarchar(max) NOT NULL,
    tags nvarchar(max) NULL,
    idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
    priority int NOT NULL,
    max_attempts int NULL,
    default_max_attempts int NOT NULL,
    run_at datetime2(6) NULL,
    delay_ms bigint NOT NULL,
    created_by nvarchar(200) NULL,
    webhook_url nvarchar(2000) NULL,
    expires_at datetime2(6) NULL,
    traceparent varchar(55) NULL,
    tracestate varchar(512) NULL,
    fairness_key nvarchar(200) NULL,
    timeout_seconds int NULL,
    retry_policy nvarchar(max) NULL,
    due_at datetime2(6) NULL
);
DECLARE @missing TABLE (name nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY);
DECLARE @new_job TABLE (id bigint NOT NULL PRIMARY KEY);

INSERT INTO @item (
    ord, queue, type, payload, tags, idempotency_key, priority, max_attempts,
    default_max_attempts, run_at, delay_ms, created_by, webhook_url, expires_at, traceparent, tracestate, fairness_key,
    timeout_seconds, retry_policy
)
SELECT
    CAST(o.[key] AS int) + 1,
    f.queue,
    f.type,
    f.payload,
    f.tags,
    f.idempotency_key,
    CAST(f.priority AS int),
    CAST(f.max_attempts AS int),
    CAST(f.default_max_attempts AS int),
    CAST(CAST(f.run_at AS datetimeoffset(7)) AS datetime2(6)),
    CAST(f.delay_ms AS bigint),
    f.created_by,
    f.webhook_url,
    CAST(CAST(f.expires_at AS datetimeoffset(7)) AS datetime2(6)),
    CAST(f.traceparent AS varchar(55)),
    CAST(f.tracestate AS varchar(512)),
    f.fairness_key,
    CAST(f.timeout_seconds AS int),
    f.retry_policy
FROM OPENJSON(@jobs) AS o
CROSS APPLY (
    SELECT
        MAX(CASE WHEN p.[key] = N'queue' THEN p.value END) AS queue,
        MAX(CASE WHEN p.[key] = N'type' THEN p.value END) AS type,
        MAX(CASE WHEN p.[key] = N'payload' THEN p.value END) AS payload,
        MAX(CASE WHEN p.[key] = N'tags' THEN p.value END) AS tags,
        MAX(CASE WHEN p.[key] = N'idempotency_key' THEN p.value END) AS idempotency_key,
        MAX(CASE WHEN p.[key] = N'priority' THEN p.value END) AS priority,
        MAX(CASE WHEN p.[key] = N'max_attempts' THEN p.value END) AS max_attempts,
        MAX(CASE WHEN p.[key] = N'default_max_attempts' THEN p.value END) AS default_max_attempts,
        MAX(CASE WHEN p.[key] = N'run_at' THEN p.value END) AS run_at,
        MAX(CASE WHEN p.[key] = N'delay_ms' THEN p.value END) AS delay_ms,
        MAX(CASE WHEN p.[key] = N'created_by' THEN p.value END) AS created_by,
        MAX(CASE WHEN p.[key] = N'webhook_url' THEN p.value END) AS webhook_url,
        MAX(CASE WHEN p.[key] = N'expires_at' THEN p.value END) AS expires_at,
        MAX(CASE WHEN p.[key] = N'traceparent' THEN p.value END) AS traceparent,
        MAX(CASE WHEN p.[key] = N'tracestate' THEN p.value END) AS tracestate,
        MAX(CASE WHEN p.[key] = N'fairness_key' THEN p.value END) AS fairness_key,
        MAX(CASE WHEN p.[key] = N'timeout_seconds' THEN p.value END) AS timeout_seconds,
        MAX(CASE WHEN p.[key] = N'retry_policy' THEN p.value END) AS retry_policy
    FROM OPENJSON(o.value) AS p
) AS f;

-- include: new_job_ids.sql

UPDATE i
SET
    i.id = n.id,
    i.due_at = COALESCE(
        i.run_at,
        DATEADD(
            SECOND,
            CAST(i.delay_ms / 1000 AS int),
            DATEADD(MILLISECOND, CAST(i.delay_ms % 1000 AS int), SYSUTCDATETIME())
        )
    )
FROM @item AS i
INNER JOIN (
    SELECT
        x.id,
        ROW_NUMBER() OVER (ORDER BY x.id) AS rn
    FROM @new_id AS x
) AS n ON i.ord = n.rn;

INSERT INTO @missing (name)
SELECT DISTINCT i.queue
FROM @item AS i
WHERE NOT EXISTS (SELECT 1 FROM readpast_queue AS eq WHERE eq.name = i.queue);

IF EXISTS (SELECT 1 FROM @missing)
BEGIN
    INSERT INTO readpast_queue (name)
    SELECT m.name
    FROM @missing AS m
    WHERE NOT EXISTS (
        SELECT 1
        FROM readpast_queue AS lq WITH (UPDLOCK, HOLDLOCK)
        WHERE lq.name = m.name
    );
END;

INSERT INTO readpast_job (
    id, queue, type, payload, tags, idempotency_key, priority, max_attempts, due_at, status,
    created_by, modified_by, webhook_url, expires_at, traceparent, tracestate, fairness_key, timeout_seconds,
    retry_policy
)
OUTPUT inserted.id INTO @new_job (id)
SELECT
    i.id,
    i.queue,
    i.type,
    i.payload,
    i.tags,
    i.idempotency_key,
    i.priority,
    COALESCE(i.max_attempts, q.max_attempts, i.default_max_attempts),
    i.due_at,
    CASE WHEN i.due_at > SYSUTCDATETIME() THEN 6 ELSE 0 END,
    i.created_by,
    i.created_by,
    i.webhook_url,
    i.expires_at,
    i.traceparent,
    i.tracestate,
    COALESCE(i.fairness_key, CASE WHEN q.fair = 1 THEN N'' END),
    i.timeout_seconds,
    i.retry_policy
FROM @item AS i
LEFT JOIN readpast_queue AS q ON q.name = i.queue
WHERE i.idempotency_key IS NULL
    OR (
        NOT EXISTS (
            SELECT 1
            FROM @item AS e
            WHERE e.idempotency_key = i.idempotency_key
                AND e.ord < i.ord
        )
        AND NOT EXISTS (
            SELECT 1
            FROM readpast_job AS k
            WHERE k.idempotency_key = i.idempotency_key
                AND k.idempotency_key IS NOT NULL -- literal: lets the filtered unique index serve
        )
    );

SELECT
    i.ord,
    j.*
FROM @item AS i
INNER JOIN @new_job AS n ON i.id = n.id
INNER JOIN readpast_job AS j ON n.id = j.id
ORDER BY i.ord ASC;
