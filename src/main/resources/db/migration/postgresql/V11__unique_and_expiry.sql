-- expiresAt: a job not started (claimed) by then never starts. Claims skip it; the expiry
-- sweeper moves it to the dead letters (DEAD, "expired"), with its webhook. Kept in the hot
-- table only: once a job is finished its expiry no longer means anything.
ALTER TABLE readpast_job ADD COLUMN expires_at timestamptz NULL;
CREATE INDEX readpast_job_expiry ON readpast_job (expires_at) WHERE status = 0 AND expires_at IS NOT NULL;

-- uniqueFor: for that long after a job was enqueued, enqueueing the same job again (same
-- idempotency key, "k:<key>", or else same queue, type and payload, "h:<sha-256>") answers
-- with the first job, whatever its status. One row per key; a key past expires_at is free.
CREATE TABLE readpast_unique_key (
    unique_key  varchar(210) PRIMARY KEY,
    job_id      bigint NULL,
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX readpast_unique_key_expiry ON readpast_unique_key (expires_at);
