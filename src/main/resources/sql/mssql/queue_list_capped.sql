-- The names of the capped queues (max_workers set). A claim whose queues include none of
-- them skips queue_lock_capped and runs job_claim alone; the broker keeps this list for a
-- second (and refreshes it at once after its own queue writes). Rate-limited queues are in
-- the list too: they are claimed under their queue lock like capped ones. A row another
-- transaction is writing is skipped, not waited for: a claim that then takes the unlocked way
-- leaves that queue alone anyway (job_claim takes capped queues only when it locked them).
SET NOCOUNT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
    q.name,
    -- a fair queue with no limit at all: its claims need no lock (round-robin alone)
    CASE
        WHEN q.fair = 1 AND q.max_workers IS NULL AND q.rate_limit IS NULL AND q.key_max_workers IS NULL
            AND q.key_rate_limit IS NULL THEN CAST(1 AS bit)
        ELSE CAST(0 AS bit)
    END AS fair_free
FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
WHERE q.max_workers IS NOT NULL
    OR q.rate_limit IS NOT NULL
    OR q.fair = 1;
