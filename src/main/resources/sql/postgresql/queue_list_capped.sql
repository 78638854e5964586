-- The names of the capped queues (max_workers set). A claim whose queues include none of
-- them skips queue_lock_capped and runs job_claim alone, in one round trip; the broker keeps
-- this list for a second (and refreshes it at once after its own queue writes).
SELECT q.name,
       -- a fair queue with no limit at all: its claims need no lock (round-robin alone)
       (q.fair AND q.max_workers IS NULL AND q.rate_limit IS NULL AND q.key_max_workers IS NULL
        AND q.key_rate_limit IS NULL) AS fair_free
FROM readpast_queue AS q
WHERE q.max_workers IS NOT NULL
   OR q.rate_limit IS NOT NULL -- rate-limited queues are claimed under their lock too
   OR q.fair -- and fair ones (job_claim_fair)
