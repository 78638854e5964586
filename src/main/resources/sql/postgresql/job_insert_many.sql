-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- Batch enqueue: every job of :jobs in one statement. :jobs is a JSON array of objects
-- {"queue", "type", "payload" (JSON text, as a string), "tags" (JSON text or null),
-- "idempotency_key", "priority", "max_attempts" (null: the queue's, else
-- "default_max_attempts"), "run_at" (ISO-8601 UTC or null), "delay_ms", "created_by",
-- "webhook_url" (or null), "expires_at" (ISO-8601 UTC or null), "traceparent" and "tracestate"
-- and "fairness_key" (or null), "timeout_seconds" and "retry_policy" (JSON text) (or null)
-- (the W3C trace context the broker checked, or null)}.
-- Missing queue rows are created (no settings: defaults apply). Each job gets its id from the
-- sequence first, in item order, so that the rows that come back can be matched to their items;
-- the inserts run in item order, so that of two items with the same idempotency key the first
-- is inserted. An item whose key a live job already holds (or an earlier item of the batch) is
-- skipped (ON CONFLICT on the partial unique index); the caller reads that job by its key.
-- Returns the inserted rows, each with "ord", its position in :jobs (from 1).
WITH items AS (
    SELECT
        x.ord, x.queue, x.type, x.payload, x.tags, x.idempotency_key, x.priority, x.max_attempts,
        x.default_max_attempts, x.run_at, x.delay_ms, x.created_by, x.webhook_url, x.expires_at,
        x.traceparent, x.tracestate, x.fairness_key, x.timeout_seconds, x.retry_policy,
        nextval(pg_get_serial_sequence('readpast_job', 'id')) AS id
    FROM ROWS FROM (
        jsonb_to_recordset(CAST(:jobs AS jsonb)) AS (
            queue varchar(200), type varchar(200), payload text, tags text, idempotency_key varchar(200),
            priority integer, max_attempts integer, default_max_attempts integer, run_at timestamptz,
            delay_ms bigint, created_by varchar(200), webhook_url varchar(2000),
            expires_at timestamptz, traceparent varchar(55), tracestate varchar(512),
            fairness_key varchar(200), timeout_seconds integer, retry_policy text
        )
    ) WITH ORDINALITY AS x (
        queue, type, payload, tags, idempotency_key, priority, max_attempts, default_max_attempts, run_at,
        delay_ms, created_by, webhook_url, expires_at, traceparent, tracestate, fairness_key, timeout_seconds, retry_policy, ord
    )
    ORDER BY x.ord
),
new_queues AS (
    INSERT INTO readpast_queue (name)
    SELECT DISTINCT i.queue FROM items AS i
    ORDER BY 1
    ON CONFLICT (name) DO NOTHING
),
inserted AS (
    INSERT INTO readpast_job (
        id, queue, type, payload, tags, idempotency_key, priority, max_attempts, due_at, status,
        created_by, modified_by, webhook_url, expires_at, traceparent, tracestate, fairness_key, timeout_seconds,
        retry_policy
    )
    SELECT
        i.id, i.queue, i.type, i.payload, i.tags, i.idempotency_key, i.priority,
        COALESCE(i.max_attempts, q.max_attempts, i.default_max_attempts),
        COALESCE(i.run_at, now() + i.delay_ms * interval '1 millisecond'),
        -- not due yet: scheduled (6), out of the claim index until a claim promotes it
        CASE WHEN COALESCE(i.run_at, now() + i.delay_ms * interval '1 millisecond') > now() THEN 6 ELSE 0 END,
        i.created_by, i.created_by, i.webhook_url, i.expires_at, i.traceparent, i.tracestate,
        COALESCE(i.fairness_key, CASE WHEN q.fair THEN '' END), i.timeout_seconds, i.retry_policy
    FROM items AS i
    LEFT JOIN readpast_queue AS q ON q.name = i.queue
    ORDER BY i.ord
    ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING *
)
SELECT i.ord, n.*
FROM inserted AS n
INNER JOIN items AS i ON i.id = n.id
ORDER BY i.ord
