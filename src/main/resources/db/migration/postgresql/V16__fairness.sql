-- Fair queues (docs/fairness.md): a job may carry a fairness key (a tenant, a customer), and
-- a queue with key settings serves its keys in turn, each within keyMaxWorkers jobs at once
-- and keyRateLimit claims per window. Jobs without a key cost nothing new: both indexes hold
-- keyed rows only.
ALTER TABLE readpast_job ADD COLUMN fairness_key varchar(200) NULL;
ALTER TABLE readpast_job_archive ADD COLUMN fairness_key varchar(200) NULL;
ALTER TABLE readpast_job_dead ADD COLUMN fairness_key varchar(200) NULL;

ALTER TABLE readpast_queue ADD COLUMN fair boolean NOT NULL DEFAULT false;
ALTER TABLE readpast_queue ADD COLUMN key_max_workers integer NULL CHECK (key_max_workers IS NULL OR key_max_workers >= 1);
ALTER TABLE readpast_queue ADD COLUMN key_rate_limit integer NULL CHECK (key_rate_limit IS NULL OR key_rate_limit >= 1);
ALTER TABLE readpast_queue ADD COLUMN key_rate_period_ms bigint NULL CHECK (key_rate_period_ms IS NULL OR key_rate_period_ms >= 1000);
-- the key served last: the next claim starts after it (round-robin)
ALTER TABLE readpast_queue ADD COLUMN fair_cursor varchar(200) NULL;

-- a fair claim's walk over the keys with due work, and each key's best jobs
CREATE INDEX ix_readpast_job_fair ON readpast_job (queue, fairness_key, priority DESC, due_at, id)
    WHERE status = 0 AND fairness_key IS NOT NULL;
-- each key's jobs at work (keyMaxWorkers)
CREATE INDEX ix_readpast_job_fair_active ON readpast_job (queue, fairness_key)
    WHERE status IN (1, 2) AND fairness_key IS NOT NULL;

-- claims per key in the current fixed window (keyRateLimit), written under the queue's lock
CREATE TABLE readpast_key_rate (
    queue        varchar(200) NOT NULL,
    fairness_key varchar(200) NOT NULL,
    rate_window  bigint NOT NULL,
    claims       integer NOT NULL,
    PRIMARY KEY (queue, fairness_key)
);
