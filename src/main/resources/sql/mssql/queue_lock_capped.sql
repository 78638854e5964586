-- First statement of a claim transaction that may reach a capped or rate-limited queue: lock
-- the rows of those queues in scope that have room and due work, in name order, so that the
-- claim statement that follows (which counts leased jobs with real locks) sees every claim
-- committed before the lock was granted, and claims on one such queue take turns. Uncapped
-- queues take no lock.
-- Never waits (reviews/tsql-review.md H2): a queue row another claim holds (or a settings
-- change is writing) is skipped with READPAST, and this claim leaves that queue alone, exactly
-- as if it were full; the caller's claim statement only takes from the queues locked here. So
-- a claim never queues behind a lock holder, even a frozen one, and claims over other queues
-- are not held up either.
-- Two steps. First, without keeping any lock (READPAST reads, S locks released at once), the
-- queues worth locking: in scope, not paused, active, with room (fewer leased or processing
-- jobs than max_workers, and claims left in the rate window; both only a pre-filter here, the
-- claim counts exactly under the lock) and with due work (a pending job, or a scheduled one
-- whose time has come). Then seek and lock exactly those rows, on the clustered primary key
-- (named, so that every claimer locks the same keys whatever plan is chosen, and the same keys
-- that PUT, pause and resume lock first when they update the row), UPDLOCK with READPAST;
-- READCOMMITTEDLOCK keeps real locks under RCSI. Paused and active are checked again under
-- the lock. Returns the names of the locked queues, and rate_limited = 1 for those whose
-- claims the caller must count (queue_rate_count).
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @due TABLE (name nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY);

-- the claim's prelude (the due promotion of every queue in scope, up to @limit),
-- committed before the queue rows are locked; the claims that follow in this transaction skip it
-- include: claim_prelude.sql
-- with scope: @queues IS NULL OR q.name IN (SELECT CAST(f.value AS nvarchar(400)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@queues) AS f)

INSERT INTO @due (name)
SELECT q.name
FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
WHERE (q.max_workers IS NOT NULL OR q.rate_limit IS NOT NULL OR q.key_max_workers IS NOT NULL
        OR q.key_rate_limit IS NOT NULL)
    AND q.paused = 0
    AND q.active = 1
    AND (
        @queues IS NULL
        OR q.name IN (
            SELECT CAST(f.value AS nvarchar(400)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@queues) AS f
        )
    )
    AND (
        q.max_workers IS NULL
        OR q.max_workers > (
            SELECT COUNT_BIG(*)
            FROM readpast_job AS a WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_active), FORCESEEK)
            WHERE a.queue = q.name
                AND a.status IN (1, 2)
        )
    )
    AND NOT EXISTS (
        SELECT 1
        FROM readpast_queue_tally AS t WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
        WHERE q.rate_limit IS NOT NULL
            AND t.queue = q.name
            AND t.rate_window
            = DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS datetime2(6)), SYSUTCDATETIME()) / q.rate_period_ms
            AND t.rate_window_count >= q.rate_limit
    )
    AND (
        EXISTS (
            SELECT 1
            FROM readpast_job AS j WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_claim), FORCESEEK)
            WHERE j.queue = q.name
                AND j.status = 0
                AND j.due_at <= SYSUTCDATETIME()
        )
        OR EXISTS (
            SELECT 1
            FROM readpast_job AS s WITH (
                READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_scheduled), FORCESEEK
            )
            WHERE s.queue = q.name
                AND s.status = 6
                AND s.due_at <= SYSUTCDATETIME()
        )
    );

-- include: queue_lock_rows.sql
