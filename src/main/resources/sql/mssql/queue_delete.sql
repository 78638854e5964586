-- DELETE /queues/NAME, last, in the transaction of queue_delete_check (which holds the row's
-- update lock): the row becomes a tombstone (deleted_at, and the highest job id so far, above
-- which a job means the queue is used again) with every setting back to its default, so a queue
-- that comes back starts fresh. Returns the name.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @deleted TABLE (name nvarchar(200) NOT NULL);
DECLARE @last_id bigint = (
    SELECT COALESCE(MAX(m.id), 0)
    FROM (
        SELECT MAX(id) AS id FROM readpast_job
        UNION ALL
        SELECT MAX(id) AS id FROM readpast_job_dead
        UNION ALL
        SELECT MAX(id) AS id FROM readpast_job_archive
    ) AS m
);

-- the claims' tally (V27) starts afresh too: first, while this transaction holds the queue row
-- with the update lock of queue_delete_check only (so that it never waits for anything after it
-- holds the queue row exclusively; docs/sqlserver.md, "Lock order")
UPDATE readpast_queue_tally WITH (ROWLOCK)
SET
    fair_cursor = NULL,
    rate_window = NULL,
    rate_window_count = 0
WHERE queue = @name;

UPDATE readpast_queue WITH (ROWLOCK)
SET
    deleted_at = SYSUTCDATETIME(),
    deleted_job_id = @last_id,
    max_workers = NULL,
    paused = 0,
    active = 1,
    lease_seconds = NULL,
    max_attempts = NULL,
    backoff_base_ms = NULL,
    backoff_cap_ms = NULL,
    webhook_url = NULL,
    rate_limit = NULL,
    rate_period_ms = NULL,
    fair = 0,
    key_max_workers = NULL,
    key_rate_limit = NULL,
    key_rate_period_ms = NULL,
    fair_keys = NULL,
    delete_succeeded = 0,
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.name INTO @deleted (name)
WHERE name = @name;

SELECT d.name
FROM @deleted AS d;
