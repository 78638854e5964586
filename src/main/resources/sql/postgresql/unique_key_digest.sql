-- The uniqueness key of a uniqueFor enqueue: the idempotency key's ("k:...") as given; without
-- one, the digest the SQL enqueue computes (readpast_unique_digest, V17), so that POST /jobs and
-- readpast_enqueue share one rule and either finds a job the other made within its window.
SELECT CASE WHEN left(CAST(:unique_key AS text), 2) = 'h:'
            THEN readpast_unique_digest(:queue, :type, :payload)
            ELSE CAST(:unique_key AS text) END AS unique_key
