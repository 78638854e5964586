-- POST /queues/{name}/pause and /resume: set the flag, keeping the other settings; creates
-- the queue row when missing.
INSERT INTO readpast_queue (name, paused, updated_at)
VALUES (:name, :paused, now())
ON CONFLICT (name) DO UPDATE
SET paused = EXCLUDED.paused,
    -- settings make a deleted queue a queue again
    deleted_at = NULL,
    deleted_job_id = NULL,
    updated_at = now()
RETURNING name
