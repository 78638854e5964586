-- DELETE /queues/{name}, last, in the transaction of queue_delete_check: the row becomes a
-- tombstone (deleted_at, and the highest job id so far, above which a job means the queue is
-- used again) with every setting back to its default, so a queue that comes back starts fresh.
UPDATE readpast_queue
SET deleted_at = now(),
    deleted_job_id = (
        SELECT COALESCE(max(m.id), 0) FROM (
            SELECT max(id) AS id FROM readpast_job
            UNION ALL SELECT max(id) FROM readpast_job_dead
            UNION ALL SELECT max(id) FROM readpast_job_archive) AS m),
    max_workers = NULL,
    paused = false,
    active = true,
    lease_seconds = NULL,
    max_attempts = NULL,
    backoff_base_ms = NULL,
    backoff_cap_ms = NULL,
    webhook_url = NULL,
    rate_limit = NULL,
    rate_period_ms = NULL,
    rate_window = NULL,
    rate_window_count = 0,
    fair = false,
    key_max_workers = NULL,
    key_rate_limit = NULL,
    key_rate_period_ms = NULL,
    fair_cursor = NULL,
    fair_keys = NULL,
    delete_succeeded = false,
    updated_at = now()
WHERE name = :name
RETURNING name
