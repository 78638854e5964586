-- The claim: one UPDATE statement. For each eligible queue (not paused, active, in the
-- filter; capped queues only when queue_lock_capped locked them), take due pending rows in
-- claim order, skipping rows other claimers hold (UPDLOCK, READPAST, ROWLOCK,
-- READCOMMITTEDLOCK, and INDEX with FORCESEEK naming the filtered claim index, so the plan
-- can only seek it in claim order and lock the rows it takes), at most the free slots of the
-- queue; then the best @limit rows overall, ordered by priority then due time, become
-- LEASED with a fresh lease: @lease_seconds when given, else the lease length of the queue,
-- else @default_lease_seconds (the broker default). @queues NULL means every queue;
-- @locked_queues is a JSON array (possibly empty) of the capped queues the previous
-- statement locked.
-- The candidates are derived tables, not a WITH clause, and the SET list reads the queue's
-- lease length with a subquery rather than from the joined candidates: Babelfish overflows
-- its stack on WITH ... UPDATE ... OUTPUT INTO, and loses the joined table of an UPDATE ...
-- FROM ... OUTPUT INTO in the SET list (both measured). ISNULL, not COALESCE, so that the
-- subquery is evaluated once.
-- A rate-limited queue (rate_limit claims per rate_period_ms) is, like a capped one, eligible
-- only when queue_lock_capped locked it; its room is also limited by the claims left in the
-- current window (the caller then counts the claimed jobs with queue_rate_count, in the same
-- transaction). Grouped jobs (group_key) run one at a time per group, in enqueue order.
-- The claimed ids go OUTPUT ... INTO a table variable (never a bare OUTPUT), and the rows
-- are read back in claim order as the one result set of the batch.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @claimed TABLE (id bigint NOT NULL PRIMARY KEY);

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
            CASE WHEN cap.room < rate.room THEN cap.room ELSE rate.room END AS room
        FROM readpast_queue AS q WITH (READCOMMITTEDLOCK)
        -- jobs leased or processing, counted for capped queues only (real locks, not row
        -- versions, so that claims committed just before the queue lock are counted)
        OUTER APPLY (
            SELECT COUNT_BIG(*) AS n
            FROM readpast_job AS a WITH (READCOMMITTEDLOCK)
            WHERE q.max_workers IS NOT NULL
                AND a.queue = q.name
                AND a.status IN (1, 2)
        ) AS act
        CROSS APPLY (
            SELECT CASE
                WHEN q.max_workers IS NULL THEN @limit
                WHEN q.max_workers > act.n THEN q.max_workers - act.n
                ELSE 0 -- no free slot; TOP must never get a negative number
            END AS room
        ) AS cap
        -- rate limit: the claims left in the current window (epoch-aligned, database clock; the
        -- queue row is locked by queue_lock_capped)
        CROSS APPLY (
            SELECT CASE
                WHEN q.rate_limit IS NULL THEN @limit
                WHEN
                    q.rate_window
                    = DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS datetime2(6)), SYSUTCDATETIME())
                    / q.rate_period_ms
                    THEN CASE
                        WHEN q.rate_limit > q.rate_window_count THEN q.rate_limit - q.rate_window_count
                        ELSE 0
                    END
                ELSE q.rate_limit
            END AS room
        ) AS rate
        WHERE q.paused = 0
            AND q.active = 1
            AND (
                (q.max_workers IS NULL AND q.rate_limit IS NULL)
                OR q.name IN (
                    SELECT CAST(l.value AS nvarchar(400)) FROM OPENJSON(@locked_queues) AS l
                )
            )
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

SELECT j.*
FROM readpast_job AS j
INNER JOIN @claimed AS c ON j.id = c.id
ORDER BY j.priority DESC, j.due_at ASC, j.id ASC;
