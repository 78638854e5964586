-- The names of the capped queues (max_workers set). A claim whose queues include none of
-- them skips queue_lock_capped and runs job_claim alone; the broker keeps this list for a
-- second (and refreshes it at once after its own queue writes). Rate-limited queues are in
-- the list too: they are claimed under their queue lock like capped ones. Read with NOLOCK
-- (review round 2, N5): a row another transaction is writing is neither waited for (a queue
-- created in a caller's long transaction, M6) nor left out (READPAST did that, and a capped
-- queue then went unclaimed until the next refresh). Reading a setting not committed yet is
-- safe both ways: a queue listed wrongly is checked again under its lock (queue_lock_capped),
-- and one left out wrongly is not claimed by the unlocked way, which reads the limits itself.
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
FROM readpast_queue AS q WITH (NOLOCK)
WHERE q.max_workers IS NOT NULL
    OR q.rate_limit IS NOT NULL
    OR q.fair = 1;
