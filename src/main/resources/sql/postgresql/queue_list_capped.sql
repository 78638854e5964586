-- The names of the capped queues (max_workers set). A claim whose queues include none of
-- them skips queue_lock_capped and runs job_claim alone, in one round trip; the broker keeps
-- this list for a second (and refreshes it at once after its own queue writes).
SELECT q.name
FROM readpast_queue AS q
WHERE q.max_workers IS NOT NULL
   OR q.rate_limit IS NOT NULL -- rate-limited queues are claimed under their lock too
   OR q.fair -- and fair ones (job_claim_fair)
