-- First statement of a claim transaction: lock the rows of the capped queues in scope that
-- have due work, in name order. Claims on the same capped queue queue up here (and only
-- here): UPDLOCK takes update locks that are held to the end of the transaction, so the
-- claim statement that follows (which counts leased jobs WITH (READCOMMITTEDLOCK)) sees
-- every claim committed before this lock was granted. Uncapped queues take no lock.
-- Two steps, so that only queues with due work are locked, and in name order (no lock
-- order deadlocks between claimers): first find them without locking (the pending-job
-- probe skips rows other claimers hold, READPAST with ROWLOCK because READPAST skips row
-- locks only: a queue whose due jobs are all being taken is not worth waiting for), then
-- seek and lock exactly those rows, on the clustered primary key (named, so that every
-- claimer locks the same keys whatever plan is chosen, and the same keys that PUT, pause and
-- resume lock first when they update the row: one lock order, no deadlock between a claim
-- and a queue update); READCOMMITTEDLOCK keeps real locks under RCSI. Paused and active are
-- checked again under the lock. Rate-limited queues are locked the same way (their window
-- count is in the row). Returns the names of the locked queues, and rate_limited = 1 for
-- those whose claims the caller must count (queue_rate_count).
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @due TABLE (name nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY);

INSERT INTO @due (name)
SELECT q.name
FROM readpast_queue AS q WITH (READCOMMITTEDLOCK)
WHERE (q.max_workers IS NOT NULL OR q.rate_limit IS NOT NULL)
    AND q.paused = 0
    AND q.active = 1
    AND (
        @queues IS NULL
        OR q.name IN (SELECT CAST(f.value AS nvarchar(400)) FROM OPENJSON(@queues) AS f)
    )
    AND EXISTS (
        SELECT 1
        FROM readpast_job AS j WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
        WHERE j.queue = q.name
            AND j.status = 0
            AND j.due_at <= SYSUTCDATETIME()
    );

SELECT
    q.name,
    CASE WHEN q.rate_limit IS NULL THEN CAST(0 AS bit) ELSE CAST(1 AS bit) END AS rate_limited
FROM readpast_queue AS q WITH (
    UPDLOCK, ROWLOCK, READCOMMITTEDLOCK, INDEX (pk_readpast_queue), FORCESEEK
)
WHERE (q.max_workers IS NOT NULL OR q.rate_limit IS NOT NULL)
    AND q.paused = 0
    AND q.active = 1
    -- explicit collation: the column's own on SQL Server (V5), and never a conflict where the
    -- column kept another one (Babelfish)
    AND q.name IN (SELECT d.name COLLATE Latin1_General_100_BIN2 FROM @due AS d)
ORDER BY q.name;
