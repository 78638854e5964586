-- The twin of PostgreSQL's V25: the job's own retry backoff as JSON text, overriding its
-- queue's; NULL: the queue's (or the broker's). Not indexed.
ALTER TABLE readpast_job ADD retry_policy nvarchar(max) NULL;
