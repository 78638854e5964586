-- expiresAt: a job not started (claimed) by then never starts. Claims skip it; the expiry
-- sweeper moves it to the dead letters (DEAD, "expired"), with its webhook. Kept in the hot
-- table only: once a job is finished its expiry no longer means anything.
ALTER TABLE readpast_job ADD expires_at datetime2(6) NULL;

-- The expiry sweeper seeks this (literal filter: a filtered index is not used against a
-- parameter).
CREATE INDEX ix_readpast_job_expiry ON readpast_job (expires_at)
WHERE status = 0 AND expires_at IS NOT NULL;

-- uniqueFor: for that long after a job was enqueued, enqueueing the same job again (same
-- idempotency key, "k:<key>", or else same queue, type and payload, "h:<sha-256>") answers
-- with the first job, whatever its status. One row per key; a key past expires_at is free.
CREATE TABLE readpast_unique_key (
    unique_key nvarchar(210) COLLATE Latin1_General_100_BIN2 NOT NULL CONSTRAINT pk_readpast_unique_key PRIMARY KEY,
    job_id bigint NULL,
    expires_at datetime2(6) NOT NULL,
    created_at datetime2(6) NOT NULL CONSTRAINT df_readpast_unique_key_created DEFAULT SYSUTCDATETIME()
);
CREATE INDEX ix_readpast_unique_key_expiry ON readpast_unique_key (expires_at);
