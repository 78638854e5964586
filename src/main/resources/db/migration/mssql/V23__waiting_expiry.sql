-- The twin of PostgreSQL's V23: WAITING jobs expire too (docs/batches.md), past their
-- expiresAt or after readpast.dependencies.wait-limit of waiting. The expiry index takes
-- WAITING (7) rows beside PENDING and scheduled ones (literal filter, repeated by
-- job_expire_pending and feature_next_times); the wait limit seeks the waiting rows by
-- creation time.
DROP INDEX ix_readpast_job_expiry ON readpast_job;
CREATE INDEX ix_readpast_job_expiry ON readpast_job (expires_at)
WHERE status IN (0, 6, 7) AND expires_at IS NOT NULL;
CREATE INDEX ix_readpast_job_waiting ON readpast_job (created_at)
WHERE status = 7;
