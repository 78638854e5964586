-- The expiry sweeper: up to @limit PENDING jobs (due, or scheduled for later) and WAITING ones
-- whose expiresAt has passed (database clock) never start, and neither do up to @limit WAITING
-- jobs enqueued more than @wait_limit_ms ago (readpast.dependencies.wait-limit; 0: no limit):
-- they move to the dead-letter table as DEAD, and their webhook (the job's URL, else the
-- queue's) goes into the outbox, in this same batch.
-- The candidates are read from the filtered expiry and waiting indexes without keeping any
-- lock (READPAST with S locks, released at once), then locked by primary key with UPDLOCK and
-- READPAST, the status and times checked again: a row a claim (or a settlement counting off a
-- waiting child) holds is skipped, never waited for, and the sweeper takes no index lock
-- before the row's own, so it cannot lock in the opposite order to a claim
-- (reviews/tsql-review.md M5). Returns the ids, queues, batch ids and has_dependents of the
-- expired jobs (the caller settles their batches and dependents).
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @webhook_event nvarchar(20) = N'job.dead';
DECLARE @candidate TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @waited TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @waited_before datetime2(6) = CASE
    WHEN @wait_limit_ms <= 0 THEN NULL
    WHEN
        @wait_limit_ms
        >= DATEDIFF_BIG(MILLISECOND, CAST('0001-01-01' AS datetime2(6)), SYSUTCDATETIME())
        THEN CAST('0001-01-01' AS datetime2(6))
    ELSE DATEADD(
        DAY,
        -CAST(@wait_limit_ms / 86400000 AS int),
        DATEADD(MILLISECOND, -CAST(@wait_limit_ms % 86400000 AS int), SYSUTCDATETIME())
    )
END;
-- include: moved_job.sql

INSERT INTO @candidate (id)
SELECT TOP (@limit) e.id
FROM readpast_job AS e WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_expiry), FORCESEEK)
WHERE e.status IN (0, 6, 7)
    AND e.expires_at IS NOT NULL
    AND e.expires_at <= SYSUTCDATETIME()
ORDER BY e.expires_at ASC;

IF @waited_before IS NOT NULL
BEGIN
    INSERT INTO @waited (id)
    SELECT TOP (@limit) w.id
    FROM readpast_job AS w WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_waiting), FORCESEEK)
    WHERE w.status = 7
        AND w.created_at <= @waited_before
    ORDER BY w.created_at ASC
    OPTION (RECOMPILE);

    -- a job past its expiresAt too is one expired so
    DELETE w
    FROM @waited AS w
    INNER JOIN @candidate AS k ON w.id = k.id;

    INSERT INTO @candidate (id)
    SELECT w.id
    FROM @waited AS w;
END;

INSERT INTO @target (id)
SELECT j.id
FROM readpast_job AS j WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, FORCESEEK)
INNER JOIN @candidate AS c ON j.id = c.id
WHERE j.status IN (0, 6, 7)
    AND (
        j.expires_at <= SYSUTCDATETIME()
        OR (j.status = 7 AND j.created_at <= @waited_before)
    );

-- include: moved_job_delete.sql

-- include: moved_into.sql
-- with into: readpast_job_dead
-- with status: 4
-- with last_error: CASE WHEN EXISTS (SELECT 1 FROM @waited AS w WHERE w.id = m.id) THEN N'expired: waited longer than readpast.dependencies.wait-limit for its parents' ELSE N'expired: not started before its expiresAt' END
-- with lease_id: NULL
;

-- include: moved_job_webhook.sql

SELECT
    m.id,
    m.queue,
    m.batch_id,
    m.has_dependents
FROM @moved AS m
ORDER BY m.id ASC;
