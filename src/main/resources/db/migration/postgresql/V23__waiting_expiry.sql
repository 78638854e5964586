-- WAITING jobs expire too (docs/batches.md): a waiting job past its expiresAt, or waiting longer
-- than readpast.dependencies.wait-limit since it was enqueued, is moved to the dead letters by
-- the expiry sweeper, and its dependants and batch settle as for any DEAD job. The expiry index
-- takes WAITING (7) rows beside PENDING and scheduled ones; the wait limit seeks the waiting
-- rows by creation time.
DROP INDEX readpast_job_expiry;
CREATE INDEX readpast_job_expiry ON readpast_job (expires_at) WHERE status IN (0, 6, 7) AND expires_at IS NOT NULL;
CREATE INDEX readpast_job_waiting ON readpast_job (created_at) WHERE status = 7;
