-- Inserts one job, unless a live (non-terminal) job already has its idempotency key: then
-- nothing is inserted and no row comes back (the caller reads the existing job). The key
-- check is a plain NOT EXISTS, with no HOLDLOCK: a range lock would cover whatever the plan
-- reads, and a plan that does not seek the filtered unique index would lock far more than
-- one key. Two enqueues racing with the same key can both pass the check; the unique
-- filtered index then refuses the second (duplicate key 2601, once the first commits), and
-- the caller retries, finds the existing job and inserts nothing.
-- The queue row is created on first use (with no settings: defaults apply), because claims
-- are driven from the queue table. No MERGE: an unlocked existence check first (the common
-- case takes no lock on the queue row), then an INSERT guarded by NOT EXISTS under UPDLOCK,
-- HOLDLOCK so that two first enqueues cannot both insert it.
-- Due time: @run_at when given, else now plus @delay_ms (bigint, split into seconds and
-- milliseconds because DATEADD takes an int); a job not due yet is stored as scheduled (6).
-- The new id goes OUTPUT ... INTO a table variable and the full row is read back as the one
-- result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @new_job TABLE (id bigint NOT NULL PRIMARY KEY);

-- due: @run_at when given, else now plus @delay_ms
DECLARE @due datetime2(6) = COALESCE(
    @run_at,
    DATEADD(
        SECOND,
        CAST(@delay_ms / 1000 AS int),
        DATEADD(MILLISECOND, CAST(@delay_ms % 1000 AS int), SYSUTCDATETIME())
    )
);

DECLARE @group_seq bigint;
-- include: next_group_seq.sql

IF NOT EXISTS (SELECT 1 FROM readpast_queue AS eq WHERE eq.name = @queue)
BEGIN
    INSERT INTO readpast_queue (name)
    SELECT @queue
    WHERE NOT EXISTS (
        SELECT 1
        FROM readpast_queue AS lq WITH (UPDLOCK, HOLDLOCK)
        WHERE lq.name = @queue
    );
END;

INSERT INTO readpast_job (
    queue, type, payload, tags, idempotency_key, priority, max_attempts, due_at, status,
    created_by, modified_by, webhook_url, expires_at, group_key, group_seq, traceparent, tracestate, fairness_key,
    timeout_seconds, retry_policy
)
OUTPUT inserted.id INTO @new_job (id)
SELECT
    @queue,
    @type,
    @payload,
    @tags,
    @idempotency_key,
    @priority,
    COALESCE(@max_attempts, q.max_attempts, @default_max_attempts),
    @due,
    -- not due yet: scheduled (6), out of the claim index until a claim promotes it
    CASE WHEN @due > SYSUTCDATETIME() THEN 6 ELSE 0 END,
    @created_by,
    @created_by,
    @webhook_url,
    @expires_at,
    @group_key,
    @group_seq,
    -- the enqueue's W3C trace context (checked by the broker; null: none)
    @traceparent,
    @tracestate,
    -- the job's fairness key (fair queues serve keys in turn; null: none)
    COALESCE(@fairness_key, CASE WHEN q.fair = 1 THEN N'' END),
    -- the most it may run, from its claim on (null: no limit)
    @timeout_seconds,
    -- its own retry backoff, JSON text (null: the queue's)
    @retry_policy
FROM (SELECT 1 AS one) AS o
LEFT JOIN readpast_queue AS q ON q.name = @queue
WHERE @idempotency_key IS NULL
    OR NOT EXISTS (
        SELECT 1
        FROM readpast_job AS k
        WHERE k.idempotency_key = @idempotency_key
            AND k.idempotency_key IS NOT NULL -- literal: lets the filtered unique index serve
    );

SELECT j.*
FROM readpast_job AS j
INNER JOIN @new_job AS i ON j.id = i.id;
