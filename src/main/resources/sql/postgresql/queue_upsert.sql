-- PUT /queues/{name}: create or replace the queue's settings.
INSERT INTO readpast_queue (
    name, max_workers, paused, active, lease_seconds, max_attempts, backoff_base_ms,
    backoff_cap_ms, webhook_url, rate_limit, rate_period_ms, fair, key_max_workers, key_rate_limit,
    key_rate_period_ms, delete_succeeded, updated_at
)
VALUES (
    :name, CAST(:max_workers AS integer), :paused, :active, CAST(:lease_seconds AS integer),
    CAST(:max_attempts AS integer), CAST(:backoff_base_ms AS bigint), CAST(:backoff_cap_ms AS bigint), :webhook_url,
    CAST(:rate_limit AS integer), CAST(:rate_period_ms AS bigint), :fair, CAST(:key_max_workers AS integer),
    CAST(:key_rate_limit AS integer), CAST(:key_rate_period_ms AS bigint), :delete_succeeded, now()
)
ON CONFLICT (name) DO UPDATE
SET max_workers = EXCLUDED.max_workers,
    paused = EXCLUDED.paused,
    active = EXCLUDED.active,
    lease_seconds = EXCLUDED.lease_seconds,
    max_attempts = EXCLUDED.max_attempts,
    backoff_base_ms = EXCLUDED.backoff_base_ms,
    backoff_cap_ms = EXCLUDED.backoff_cap_ms,
    webhook_url = EXCLUDED.webhook_url,
    rate_limit = EXCLUDED.rate_limit,
    rate_period_ms = EXCLUDED.rate_period_ms,
    fair = EXCLUDED.fair,
    key_max_workers = EXCLUDED.key_max_workers,
    key_rate_limit = EXCLUDED.key_rate_limit,
    key_rate_period_ms = EXCLUDED.key_rate_period_ms,
    delete_succeeded = EXCLUDED.delete_succeeded,
    -- settings make a deleted queue a queue again
    deleted_at = NULL,
    deleted_job_id = NULL,
    updated_at = now()
RETURNING name
