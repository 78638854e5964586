-- The shared long-poll check: which of these queues (@queues JSON array, NULL = every queue)
-- have a job claimable now? One statement per instance per tick, and only while claims wait.
-- Same columns as on PostgreSQL (name, due_now, next_due_at, db_now), but only due queues are
-- returned and next_due_at is always NULL: SQL Server has no NOTIFY, so its poller checks on a
-- fixed bound (200 ms while work keeps coming, 1 s when idle) and needs no next due time.
-- Rows another transaction is writing are skipped (a claim in its write phase, an enqueue not
-- committed yet: its own notice wakes the waiters); ROWLOCK because READPAST skips row locks
-- only, never page locks. (Rows a claim has only read hold U locks, which these S-lock reads
-- do not skip: they see them.) Due means a pending row, or a scheduled one whose time has come.
SET NOCOUNT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
    q.name,
    CAST(1 AS bit) AS due_now,
    CAST(NULL AS datetime2(6)) AS next_due_at,
    SYSUTCDATETIME() AS db_now
FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
WHERE
    q.paused = 0
    AND q.active = 1
    AND (
        @queues IS NULL
        OR q.name IN (SELECT CAST(f.value AS nvarchar(400)) FROM OPENJSON(@queues) AS f)
    )
    AND (
        EXISTS (
            SELECT 1
            FROM readpast_job AS j WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_claim), FORCESEEK)
            WHERE
                j.queue = q.name
                AND j.status = 0
                AND j.due_at <= SYSUTCDATETIME()
                AND (j.expires_at IS NULL OR j.expires_at > SYSUTCDATETIME())
        )
        -- a scheduled job whose time has come (the claim promotes it)
        OR EXISTS (
            SELECT 1
            FROM readpast_job AS s WITH (
                READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_scheduled), FORCESEEK
            )
            WHERE
                s.queue = q.name
                AND s.status = 6
                AND s.due_at <= SYSUTCDATETIME()
                AND (s.expires_at IS NULL OR s.expires_at > SYSUTCDATETIME())
        )
    );
