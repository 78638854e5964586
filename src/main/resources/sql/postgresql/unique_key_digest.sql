-- The uniqueness key of a uniqueFor enqueue without an idempotency key, as the SQL enqueue
-- computes it (readpast_unique_digest, V16): POST /jobs and readpast_enqueue share one rule,
-- so either path finds a job the other made within its window.
SELECT readpast_unique_digest(:queue, :type, :payload) AS unique_key
