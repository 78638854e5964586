-- Rate limits per queue: at most rate_limit claims in each window of rate_period_ms (windows
-- aligned on the epoch, database clock), counted in the queue row (rate_window: the window's
-- number, rate_window_count: claims in it). Claims on rate-limited queues lock the queue row
-- like claims on capped queues, so the count is exact across instances.
-- (Column-level CHECK constraints: each refers only to its own new column.)
ALTER TABLE readpast_queue ADD rate_limit int NULL
CONSTRAINT ck_readpast_queue_rate_limit CHECK (rate_limit IS NULL OR rate_limit >= 0);
ALTER TABLE readpast_queue ADD rate_period_ms bigint NULL
CONSTRAINT ck_readpast_queue_rate_period CHECK (rate_period_ms IS NULL OR rate_period_ms > 0);
ALTER TABLE readpast_queue ADD rate_window bigint NULL;
ALTER TABLE readpast_queue ADD rate_window_count int NOT NULL
CONSTRAINT df_readpast_queue_rate_count DEFAULT 0;

-- Ordered groups: jobs with the same group_key in a queue run one at a time, in enqueue order.
-- group_seq is that order: drawn under a per-group lock at enqueue (and again at requeue, which
-- puts the job at the end of its group), so that a group's jobs become visible in group_seq
-- order. A grouped job is claimable only when no job of its group is LEASED or PROCESSING and
-- none PENDING comes before it.
CREATE SEQUENCE readpast_job_group_seq AS bigint START WITH 1 INCREMENT BY 1;
ALTER TABLE readpast_job ADD group_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
ALTER TABLE readpast_job ADD group_seq bigint NULL;
ALTER TABLE readpast_job_archive ADD group_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
ALTER TABLE readpast_job_dead ADD group_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
CREATE INDEX ix_readpast_job_group ON readpast_job (queue, group_key, group_seq)
INCLUDE (status) WHERE group_key IS NOT NULL;
