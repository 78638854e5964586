-- uniqueFor: takes a uniqueness key for :unique_for_ms, unless another job holds it and its
-- window has not run out (:force takes it anyway: its holder is gone). Returns the key when
-- this call took it; nothing when it is held (the caller reads the holder with unique_key_get).
-- Two enqueues with the same key: the second waits for the first's transaction and then finds
-- the key held.
INSERT INTO readpast_unique_key (unique_key, job_id, expires_at)
VALUES (:unique_key, NULL, now() + CAST(:unique_for_ms AS bigint) * interval '1 millisecond')
ON CONFLICT (unique_key) DO UPDATE
SET job_id = NULL,
    expires_at = EXCLUDED.expires_at,
    created_at = now()
WHERE readpast_unique_key.expires_at <= now() OR CAST(:force AS boolean)
RETURNING unique_key
