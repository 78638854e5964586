-- The error of each failed attempt (a failure report or a lease expiry), oldest first, at most
-- the last 20: a JSON array of {"attempt", "at", "workerId", "error"}, appended by the failure
-- paths (job_retry, job_kill, job_cancel_leased) and carried along when a job moves between
-- the hot, archive and dead-letter tables. last_error stays the newest one. Nullable columns
-- without a default: adding them changes metadata only.
ALTER TABLE readpast_job ADD errors nvarchar(max) NULL;
ALTER TABLE readpast_job_archive ADD errors nvarchar(max) NULL;
ALTER TABLE readpast_job_dead ADD errors nvarchar(max) NULL;
