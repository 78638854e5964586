-- The holder finished the job: it moves from the hot table to the archive as SUCCEEDED (3)
-- with @result. Guarded by id, lease id and status: no row means the lease was lost. (@lease_id
-- is a UUID string; one that is not a UUID matches nothing.) The row is locked by the guarded
-- read, moved (include/moved_job_delete.sql), inserted into the archive (unless its queue's
-- onSuccess is delete), and returned as SUCCEEDED as the one result set. Its completion webhook, if the job or its queue names
-- one, goes into the outbox (readpast_webhook) in the same batch. With @linked = 0 (a bit) a
-- job of a batch (batch_id) or one that others wait on (has_dependents) is left alone (no row);
-- with 1 it is completed too, and the caller settles it in the same transaction.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @webhook_event nvarchar(20) = N'job.succeeded';
-- include: moved_job.sql

INSERT INTO @target (id)
SELECT j.id
FROM readpast_job AS j WITH (UPDLOCK, ROWLOCK)
WHERE j.id = @id
    AND j.lease_id = TRY_CONVERT(uniqueidentifier, @lease_id)
    AND j.status IN (1, 2)
    -- the lease still runs (database clock): an expired one is lost, swept or not
    AND j.lease_expires_at > SYSUTCDATETIME()
    -- a job of a batch, or one that others wait on, is completed with its settlement (@linked)
    AND (@linked = 1 OR (j.batch_id IS NULL AND j.has_dependents = 0));

-- include: moved_job_delete.sql

-- Kept in the archive unless its queue deletes succeeded jobs (onSuccess delete); a job of a
-- batch, or one that others wait on, is kept all the same (its batch and dependants read it).
-- The queue's setting is read without a lock (NOLOCK): this statement holds the job rows, and a
-- claim holds queue rows while it waits for job rows (N1); while a PUT of the queue is in
-- flight either value is right.
-- include: moved_into.sql
-- with into: readpast_job_archive
-- with status: 3
-- with result: @result
-- with modified_by: COALESCE(@modified_by, m.modified_by)
-- with where: WHERE m.batch_id IS NOT NULL OR m.has_dependents = 1 OR NOT EXISTS (SELECT 1 FROM readpast_queue AS q WITH (NOLOCK) WHERE q.name = m.queue AND q.delete_succeeded = 1)
;

-- include: moved_job_webhook.sql

-- the job as SUCCEEDED, archived or deleted, as the archive holds it
-- include: finished_row.sql
-- with status: 3
-- with result: @result
-- with modified_by: COALESCE(@modified_by, m.modified_by)
