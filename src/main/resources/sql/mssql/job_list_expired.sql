-- Leases past their expiry (database clock), at most @limit, with what the failure path needs:
-- the holder, the cancel flag and the backoff settings of the queue (NULL when the queue row is
-- missing); and, on every row, next_expiry (the earliest lease that has not expired yet, so
-- that the sweeper can sleep until then) and db_now. When no lease has expired the answer is
-- one row with NULL job columns. Reads the small leased/processing set only (literal status
-- filter, for the filtered index). Expired rows another transaction holds right now (a
-- heartbeat, a completion) are skipped, not waited for: READPAST, which needs READ COMMITTED,
-- with ROWLOCK (READPAST skips row locks only, never page locks) and READCOMMITTEDLOCK so it
-- reads real locks under RCSI too. The next expiry is a plain read (an estimate: the sweeper
-- reads it again each pass), a seek on the lease-expiry index from now on, not a read of every
-- lease. Both reads seek ix_readpast_job_lease_expiry. The queue rows are a plain read. The sweeper acts on each row
-- with a guarded statement of its own.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
    h.next_expiry,
    h.db_now,
    e.*
FROM (
    SELECT
        MIN(a.lease_expires_at) AS next_expiry,
        SYSUTCDATETIME() AS db_now
    FROM readpast_job AS a WITH (INDEX (ix_readpast_job_lease_expiry))
    WHERE a.status IN (1, 2)
        AND a.lease_expires_at > SYSUTCDATETIME()
) AS h
OUTER APPLY (
    SELECT TOP (@limit)
        j.id,
        j.lease_id,
        j.attempt,
        j.max_attempts,
        j.queue,
        j.worker_id,
        j.cancel_requested,
        q.backoff_base_ms,
        q.backoff_cap_ms,
        j.lease_expires_at,
        j.timeout_seconds,
        j.deadline_at,
        j.retry_policy
    FROM readpast_job AS j WITH (
        READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_lease_expiry), FORCESEEK
    )
    LEFT JOIN readpast_queue AS q ON j.queue = q.name
    WHERE j.status IN (1, 2)
        AND j.lease_expires_at <= SYSUTCDATETIME()
    ORDER BY j.lease_expires_at ASC
) AS e;
