-- A finished job keeps its own time limit and retry backoff (V24, V25), so that a requeue of a
-- DEAD or CANCELLED job runs under them again and GET shows them. Both nullable, not indexed.
ALTER TABLE readpast_job_archive ADD COLUMN timeout_seconds integer NULL;
ALTER TABLE readpast_job_archive ADD COLUMN retry_policy text NULL;
ALTER TABLE readpast_job_dead ADD COLUMN timeout_seconds integer NULL;
ALTER TABLE readpast_job_dead ADD COLUMN retry_policy text NULL;
