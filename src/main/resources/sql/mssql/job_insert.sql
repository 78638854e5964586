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
-- milliseconds because DATEADD takes an int). The new id goes OUTPUT ... INTO a table
-- variable and the full row is read back as the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @new_job TABLE (id bigint NOT NULL PRIMARY KEY);

-- a grouped job's place in its group (the caller holds the group's lock, job_group_lock)
DECLARE @next_group_seq TABLE (
    n int NOT NULL PRIMARY KEY,
    v bigint NOT NULL DEFAULT (NEXT VALUE FOR readpast_job_group_seq)
);
DECLARE @group_seq bigint;
IF @group_key IS NOT NULL
BEGIN
    -- the next value of the group sequence, through a table variable's column default (not
    -- sp_sequence_get_range, which Babelfish lacks; the offline parser takes this form)
    INSERT INTO @next_group_seq (n) VALUES (1);
    SELECT @group_seq = g.v FROM @next_group_seq AS g;
END;

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
    queue, type, payload, tags, idempotency_key, priority, max_attempts, due_at,
    created_by, modified_by, webhook_url, expires_at, group_key, group_seq
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
    COALESCE(
        @run_at,
        DATEADD(
            SECOND,
            CAST(@delay_ms / 1000 AS int),
            DATEADD(MILLISECOND, CAST(@delay_ms % 1000 AS int), SYSUTCDATETIME())
        )
    ),
    @created_by,
    @created_by,
    @webhook_url,
    @expires_at,
    @group_key,
    @group_seq
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
