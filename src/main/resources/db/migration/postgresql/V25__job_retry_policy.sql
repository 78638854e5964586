-- Per-job retry backoff (the enqueue's "retry", docs/api.md): retry_policy is the job's own
-- backoff as JSON text, {"baseSeconds", "factor", "capSeconds", "jitter"} or {"delaysSeconds":
-- [...]}, overriding its queue's backoff; NULL: the queue's (or the broker's). Read by the failure
-- path with the job; not indexed.
ALTER TABLE readpast_job ADD COLUMN retry_policy text NULL;
