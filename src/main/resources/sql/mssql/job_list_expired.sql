-- Leases past their expiry (database clock), oldest first, at most @limit, with what the
-- failure path needs: the holder, the cancel flag and the backoff settings of the queue
-- (NULL when the queue row is missing). Reads the small leased/processing set only (literal
-- status filter, for the filtered index). Rows another transaction holds right now (a
-- heartbeat, a completion) are skipped, not waited for: READPAST, which needs READ
-- COMMITTED, with ROWLOCK (READPAST skips row locks only, never page locks) and
-- READCOMMITTEDLOCK so it reads real locks under RCSI too. The queue rows are a plain read.
-- The sweeper acts on each row with a guarded statement of its own.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT TOP (@limit)
    j.id,
    j.lease_id,
    j.attempt,
    j.max_attempts,
    j.queue,
    j.worker_id,
    j.cancel_requested,
    q.backoff_base_ms,
    q.backoff_cap_ms
FROM readpast_job AS j WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
LEFT JOIN readpast_queue AS q ON j.queue = q.name
WHERE j.status IN (1, 2)
    AND j.lease_expires_at <= SYSUTCDATETIME()
ORDER BY j.lease_expires_at ASC;
