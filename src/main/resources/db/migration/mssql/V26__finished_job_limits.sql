-- The twin of PostgreSQL's V26: a finished job keeps its own time limit and retry backoff, so
-- that a requeue runs under them again and GET shows them. Both nullable, not indexed.
ALTER TABLE readpast_job_archive ADD timeout_seconds int NULL;
ALTER TABLE readpast_job_archive ADD retry_policy nvarchar(max) NULL;
ALTER TABLE readpast_job_dead ADD timeout_seconds int NULL;
ALTER TABLE readpast_job_dead ADD retry_policy nvarchar(max) NULL;
