-- Rate limits per queue: at most rate_limit claims in each window of rate_period_ms (windows
-- aligned on the epoch, database clock), counted in the queue row (rate_window: the window's
-- number, rate_window_count: claims in it). Claims on rate-limited queues lock the queue row
-- like claims on capped queues, so the count is exact across instances.
ALTER TABLE readpast_queue ADD COLUMN rate_limit integer NULL CHECK (rate_limit IS NULL OR rate_limit >= 0);
ALTER TABLE readpast_queue ADD COLUMN rate_period_ms bigint NULL CHECK (rate_period_ms IS NULL OR rate_period_ms > 0);
ALTER TABLE readpast_queue ADD COLUMN rate_window bigint NULL;
ALTER TABLE readpast_queue ADD COLUMN rate_window_count integer NOT NULL DEFAULT 0;

-- Ordered groups: jobs with the same group_key in a queue run one at a time, in enqueue order.
-- group_seq is that order: drawn under a per-group lock at enqueue (and again at requeue, which
-- puts the job at the end of its group), so that a group's jobs become visible in group_seq
-- order. A grouped job is claimable only when no job of its group is LEASED or PROCESSING and
-- none PENDING comes before it.
CREATE SEQUENCE readpast_job_group_seq;
ALTER TABLE readpast_job ADD COLUMN group_key varchar(200) NULL;
ALTER TABLE readpast_job ADD COLUMN group_seq bigint NULL;
ALTER TABLE readpast_job_archive ADD COLUMN group_key varchar(200) NULL;
ALTER TABLE readpast_job_dead ADD COLUMN group_key varchar(200) NULL;
CREATE INDEX readpast_job_group ON readpast_job (queue, group_key, group_seq) WHERE group_key IS NOT NULL;
