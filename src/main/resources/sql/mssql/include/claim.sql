-- The claim (job_claim, and the claim part of job_ack_claim). For each eligible queue (not
-- paused, active, in @queues (a JSON array; NULL = every queue); capped and rate-limited
-- queues only when queue_lock_capped locked them, @locked_queues, a JSON array), due pending
-- rows are taken in claim order (priority, then due time, then id), at most the queue's free
-- slots; the best @limit of them over all queues become LEASED with a fresh lease of
-- @lease_seconds when given, else the queue's lease length, else @default_lease_seconds.
-- Lock rules (reviews/tsql-review.md):
-- * Nothing here waits for a lock another claim holds. Queue rows are read with READPAST: a
--   queue row another transaction is writing (a settings change, a queue created in an open
--   transaction) is left out of this claim, not waited for; claims themselves only ever hold
--   queue rows with update locks (their counts are in readpast_queue_tally, V27). Job rows are read
--   with UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK and INDEX with FORCESEEK on the filtered
--   claim index, so that the plan can only seek it in claim order and lock the rows it takes;
--   rows other claimers hold are skipped. The UPDATE target is reached by seek on those rows
--   (ROWLOCK, READPAST, FORCESEEK), never scanned, and the claimed rows come back through
--   OUTPUT ... INTO (no second read of the table).
-- * Only the rows taken are locked: with more than one eligible queue, a first pass that locks
--   nothing (READPAST reads, S locks released at once) finds how many of the best @limit rows
--   each queue holds, and the locking pass then takes that many from each queue.
-- * The count of a capped queue's leased and processing jobs is a locking read (real locks,
--   not row versions, so that it counts every claim committed before the queue lock was
--   granted). It can wait only for an ack, heartbeat or expiry of that queue in flight, never
--   for a claim (claims on a capped queue hold its row lock), and never past LOCK_TIMEOUT.
-- * Scheduled rows (status 6) whose due time has come became pending (0) before, in the claim's
--   prelude (include/claim_prelude.sql), committed before this claim locks anything.
-- * Grouped jobs (group_key) run one at a time per group, in enqueue order. The group probe is
--   a locking read without READPAST: a member another transaction is changing right now is
--   waited for (briefly), not skipped, so that two claims never both start a job of one group.
-- * expiresAt: a job is never started after it (the expiry sweeper moves such jobs to DEAD).
-- The candidates are derived tables, not WITH clauses (Babelfish overflows its stack on
-- WITH ... UPDATE ... OUTPUT INTO); the SET list reads the queue's lease length with a subquery
-- on @eligible rather than from a joined table (Babelfish loses the joined table of an UPDATE
-- ... FROM ... OUTPUT INTO in the SET list). ISNULL, not COALESCE, so that the subquery is
-- evaluated once.
-- include: claim_tables.sql

INSERT INTO @eligible (name, lease_seconds, room)
SELECT
    q.name,
    q.lease_seconds,
    CASE WHEN cap.room < rate.room THEN cap.room ELSE rate.room END
FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
OUTER APPLY (
    SELECT COUNT_BIG(*) AS n
    FROM readpast_job AS a WITH (READCOMMITTEDLOCK, INDEX (ix_readpast_job_active), FORCESEEK)
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
-- rate limit: the claims left in the current window (epoch-aligned, database clock), counted
-- in the queue's tally row (V27, review 2's N1), which only claims holding the queue row's lock
-- (queue_lock_capped) write; one another transaction is writing is skipped, and the queue then
-- has no room in this claim
OUTER APPLY (
    SELECT
        t.rate_window,
        t.rate_window_count
    FROM readpast_queue_tally AS t WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE q.rate_limit IS NOT NULL
        AND t.queue = q.name
) AS tally
CROSS APPLY (
    SELECT CASE
        WHEN q.rate_limit IS NULL THEN @limit
        WHEN tally.rate_window_count IS NULL THEN 0
        WHEN
            tally.rate_window
            = DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS datetime2(6)), SYSUTCDATETIME())
            / q.rate_period_ms
            THEN CASE
                WHEN q.rate_limit > tally.rate_window_count THEN q.rate_limit - tally.rate_window_count
                ELSE 0
            END
        ELSE q.rate_limit
    END AS room
) AS rate
WHERE q.paused = 0
    AND q.active = 1
    -- a fair queue is claimed by job_claim_fair alone, under its lock
    AND q.fair = 0
    AND (
        (q.max_workers IS NULL AND q.rate_limit IS NULL)
        OR q.name IN (
            SELECT CAST(l.value AS nvarchar(400)) COLLATE Latin1_General_100_BIN2
            FROM OPENJSON(@locked_queues) AS l
        )
    )
    AND (
        @queues IS NULL
        OR q.name IN (
            SELECT CAST(f.value AS nvarchar(400)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@queues) AS f
        )
    );

-- more than one queue with room: find each one's share of the best @limit rows, locking nothing
IF (SELECT COUNT(*) FROM @eligible AS e WHERE e.room > 0) > 1
BEGIN
    INSERT INTO @share (queue, n)
    SELECT
        w.queue,
        COUNT(*) AS n
    FROM (
        SELECT TOP (@limit) c.queue
        FROM @eligible AS f
        CROSS APPLY (
            SELECT TOP (f.room)
                j.queue,
                j.priority,
                j.due_at,
                j.id
            FROM readpast_job AS j WITH (
                READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_claim), FORCESEEK
            )
            WHERE j.queue = f.name
                AND j.status = 0
                AND j.due_at <= SYSUTCDATETIME()
                AND (j.expires_at IS NULL OR j.expires_at > SYSUTCDATETIME())
                -- a claim for some job types only (@types, a JSON array; NULL: every type), compared
                -- exactly (binary), as queue names are
                AND (
                    @types IS NULL
                    OR j.type IN (
                        SELECT CAST(ty.value AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@types) AS ty
                    )
                )
            ORDER BY j.priority DESC, j.due_at ASC, j.id ASC
        ) AS c
        WHERE f.room > 0
        ORDER BY c.priority DESC, c.due_at ASC, c.id ASC
    ) AS w
    GROUP BY w.queue;

    UPDATE e
    SET e.room = ISNULL((SELECT s.n FROM @share AS s WHERE s.queue = e.name), 0)
    FROM @eligible AS e;
END;

-- include: claim_update.sql
