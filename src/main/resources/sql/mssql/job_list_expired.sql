-- Leases past their expiry (database clock), oldest first, at most @limit. Reads the small
-- leased/processing set only (literal status filter, for the filtered index). Rows another
-- transaction holds right now (a heartbeat, a completion) are skipped, not waited for:
-- READPAST, which needs READ COMMITTED, with READCOMMITTEDLOCK so it reads real locks under
-- RCSI too. The sweeper acts on each row with a guarded statement of its own.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT TOP (@limit)
    id,
    lease_id,
    attempt,
    max_attempts,
    queue
FROM readpast_job WITH (READPAST, READCOMMITTEDLOCK)
WHERE status IN (1, 2)
    AND lease_expires_at <= SYSUTCDATETIME()
ORDER BY lease_expires_at ASC;
