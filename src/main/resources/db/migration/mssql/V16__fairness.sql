-- Fair queues (docs/fairness.md): a job may carry a fairness key (a tenant, a customer), and
-- a queue with key settings serves its keys in turn, each within keyMaxWorkers jobs at once
-- and keyRateLimit claims per window. Jobs without a key cost nothing new: both indexes are
-- filtered to keyed rows. (Statements SQL Server must compile apart are in sp_executesql, as
-- in V13.)
-- keys compare as PostgreSQL compares them: case and accents count (binary collation; not on
-- Babelfish, which cannot set a column's collation: there keys compare as its server collation)
IF SERVERPROPERTY('babelfish') IS NULL
BEGIN
    EXEC sp_executesql N'
ALTER TABLE readpast_job ADD fairness_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
ALTER TABLE readpast_job_archive ADD fairness_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
ALTER TABLE readpast_job_dead ADD fairness_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
ALTER TABLE readpast_queue ADD fair_cursor nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
';
END;
ELSE
BEGIN
    EXEC sp_executesql N'
ALTER TABLE readpast_job ADD fairness_key nvarchar(200) NULL;
ALTER TABLE readpast_job_archive ADD fairness_key nvarchar(200) NULL;
ALTER TABLE readpast_job_dead ADD fairness_key nvarchar(200) NULL;
ALTER TABLE readpast_queue ADD fair_cursor nvarchar(200) NULL;
';
END;

ALTER TABLE readpast_queue ADD fair bit NOT NULL CONSTRAINT df_readpast_queue_fair DEFAULT (0);
ALTER TABLE readpast_queue ADD key_max_workers int NULL;
ALTER TABLE readpast_queue ADD key_rate_limit int NULL;
ALTER TABLE readpast_queue ADD key_rate_period_ms bigint NULL;
-- (fair_cursor, above: the key served last; the next claim starts after it, round-robin)

EXEC sp_executesql N'
CREATE INDEX ix_readpast_job_fair ON readpast_job (queue, fairness_key, priority DESC, due_at, id)
    WHERE status = 0 AND fairness_key IS NOT NULL;
CREATE INDEX ix_readpast_job_fair_active ON readpast_job (queue, fairness_key)
    WHERE status IN (1, 2) AND fairness_key IS NOT NULL;
ALTER TABLE readpast_queue ADD CONSTRAINT ck_readpast_queue_key_limits CHECK (
    (key_max_workers IS NULL OR key_max_workers >= 1)
    AND (key_rate_limit IS NULL OR key_rate_limit >= 1)
    AND (key_rate_period_ms IS NULL OR key_rate_period_ms >= 1000));
';

-- claims per key in the current fixed window (keyRateLimit), written under the queue's lock
CREATE TABLE readpast_key_rate (
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    fairness_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    rate_window bigint NOT NULL,
    claims int NOT NULL,
    CONSTRAINT pk_readpast_key_rate PRIMARY KEY (queue, fairness_key)
);
