-- DELETE /queues/{name} keeps the queue's row as a tombstone (deleted_at set, settings back to
-- the defaults) instead of removing it: claims are driven from the queue table, and an enqueue
-- in flight when the queue is deleted has already seen the row, so removing it could leave that
-- job with no queue row, never claimable. A deleted queue is listed again once it holds jobs
-- (include/queue_live.sql), and PUT, pause or resume clear deleted_at.
ALTER TABLE readpast_queue ADD COLUMN deleted_at timestamptz NULL;
-- the highest job id when it was deleted: a job of the queue above it (in the dead-letter or
-- archive table) means the queue was used again
ALTER TABLE readpast_queue ADD COLUMN deleted_job_id bigint NULL;

-- The queues to show: not deleted, or used since (unfinished jobs, or dead or finished jobs with
-- ids above the highest id at the deletion). GET /queues, GET /queues/{name}, the claim's
-- unknownQueues and DELETE itself read queues through it; claims read readpast_queue directly,
-- so a deleted queue's jobs stay claimable.
CREATE VIEW readpast_queue_live AS
SELECT q.name
FROM readpast_queue AS q
WHERE q.deleted_at IS NULL
   OR EXISTS (SELECT 1 FROM readpast_job AS j WHERE j.queue = q.name)
   OR EXISTS (SELECT 1 FROM readpast_job_dead AS d WHERE d.queue = q.name AND d.id > q.deleted_job_id)
   OR EXISTS (SELECT 1 FROM readpast_job_archive AS a WHERE a.queue = q.name AND a.id > q.deleted_job_id);
