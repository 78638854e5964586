-- The names of the capped queues (max_workers set). A claim whose queues include none of
-- them skips queue_lock_capped and runs job_claim alone; the broker keeps this list for a
-- second (and refreshes it at once after its own queue writes). The filtered index
-- ix_readpast_queue_capped covers it.
SET NOCOUNT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT q.name
FROM readpast_queue AS q
WHERE q.max_workers IS NOT NULL;
