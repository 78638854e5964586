-- The twin of PostgreSQL's V20: DELETE /queues/{name} keeps the queue's row as a tombstone
-- (deleted_at set, settings back to the defaults), so that an enqueue in flight when the queue
-- is deleted never leaves a job without its queue row (claims are driven from the queue table).
ALTER TABLE readpast_queue ADD deleted_at datetime2(6) NULL;
ALTER TABLE readpast_queue ADD deleted_job_id bigint NULL;
GO

-- The queues to show: not deleted, or used since (unfinished jobs, or dead or finished jobs with
-- ids above the highest id at the deletion). GET /queues, GET /queues/NAME, the claim's
-- unknownQueues and DELETE itself read queues through it; claims read readpast_queue directly,
-- so a deleted queue's jobs stay claimable. Read with NOLOCK, as the queue counts beside it are
-- (telemetry for lists and the dashboard, never waiting behind claims and acks).
CREATE VIEW readpast_queue_live AS
SELECT q.name
FROM readpast_queue AS q WITH (NOLOCK)
WHERE
    q.deleted_at IS NULL
    OR EXISTS (SELECT 1 FROM readpast_job AS j WITH (NOLOCK) WHERE j.queue = q.name)
    OR EXISTS (
        SELECT 1 FROM readpast_job_dead AS d WITH (NOLOCK)
        WHERE d.queue = q.name AND d.id > q.deleted_job_id
    )
    OR EXISTS (
        SELECT 1 FROM readpast_job_archive AS a WITH (NOLOCK)
        WHERE a.queue = q.name AND a.id > q.deleted_job_id
    );
