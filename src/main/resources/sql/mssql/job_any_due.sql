-- The shared long-poll check: which of these queues (@queues JSON array, NULL = every queue)
-- have a job claimable now? One statement per instance per tick, and only while claims wait.
-- Rows other claims hold are skipped (they are being claimed already); ROWLOCK because READPAST
-- skips row locks only, never page locks.
SET NOCOUNT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT q.name
FROM readpast_queue AS q
WHERE
    q.paused = 0
    AND q.active = 1
    AND (
        @queues IS NULL
        OR q.name IN (SELECT CAST(f.value AS nvarchar(400)) FROM OPENJSON(@queues) AS f)
    )
    AND EXISTS (
        SELECT 1
        FROM readpast_job AS j WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
        WHERE
            j.queue = q.name
            AND j.status = 0
            AND j.due_at <= SYSUTCDATETIME()
            AND (j.expires_at IS NULL OR j.expires_at > SYSUTCDATETIME())
    );
