-- The twin of PostgreSQL's V24: per-job time limits (timeoutSeconds). timeout_seconds is the
-- most a job may run, counted from its claim across heartbeats; deadline_at is that instant for
-- the current lease, set by the claim; no lease runs past it. Neither is indexed.
ALTER TABLE readpast_job ADD timeout_seconds int NULL;
ALTER TABLE readpast_job ADD deadline_at datetime2(6) NULL;
