-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- Inserts one job, unless a live (non-terminal) job already has its idempotency key: then
-- nothing is inserted and no row comes back (the caller reads the existing job). The
-- partial unique index decides, also between concurrent enqueues. The queue row is created
-- on first use (no settings: defaults apply), because claims are driven from the queue table.
-- A job not due yet is stored as scheduled (6).
WITH new_queue AS (
    INSERT INTO readpast_queue (name) VALUES (:queue)
    ON CONFLICT (name) DO NOTHING
)
INSERT INTO readpast_job (
    queue, type, payload, tags, idempotency_key, priority, max_attempts, due_at, status,
    created_by, modified_by, webhook_url, expires_at, group_key, group_seq, traceparent, tracestate, fairness_key,
    timeout_seconds, retry_policy
)
SELECT
    :queue, :type, :payload, :tags, :idempotency_key, :priority,
    COALESCE(CAST(:max_attempts AS integer), q.max_attempts, CAST(:default_max_attempts AS integer)),
    d.due_at,
    -- not due yet: scheduled (6), out of the claim index until a claim promotes it
    CASE WHEN d.due_at > now() THEN 6 ELSE 0 END,
    :created_by, :created_by, :webhook_url, CAST(:expires_at AS timestamptz), CAST(:group_key AS varchar(200)),
    -- a grouped job's place in its group (the caller holds the group's lock, job_group_lock)
    CASE WHEN CAST(:group_key AS varchar(200)) IS NULL THEN NULL ELSE nextval('readpast_job_group_seq') END,
    -- the enqueue's W3C trace context (checked by the broker; null: none)
    CAST(:traceparent AS varchar(55)), CAST(:tracestate AS varchar(512)),
    -- the job's fairness key (fair queues serve keys in turn; null: none)
    COALESCE(CAST(:fairness_key AS varchar(200)), CASE WHEN q.fair THEN '' END),
    -- the most it may run, from its claim on (null: no limit)
    CAST(:timeout_seconds AS integer),
    -- its own retry backoff, JSON text (null: the queue's)
    CAST(:retry_policy AS text)
FROM (SELECT COALESCE(CAST(:run_at AS timestamptz),
                     now() + CAST(:delay_ms AS bigint) * interval '1 millisecond') AS due_at) AS d
LEFT JOIN readpast_queue AS q ON q.name = :queue
ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
RETURNING *
