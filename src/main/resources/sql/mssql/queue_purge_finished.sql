-- DELETE /queues/NAME?purge=true, before the deletion: up to @limit of the queue's dead letters
-- and up to @limit of its finished (archived) jobs deleted for good, as DELETE /jobs/ID deletes
-- one, in a transaction of their own; returns how many. Each table is reached by a seek of its
-- (queue, id) index, in id order; rows another transaction holds (a retention sweeper) are
-- skipped with READPAST, never waited for. The caller repeats until a pass deletes nothing.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @purged TABLE (id bigint NOT NULL);

-- include: purged_rows.sql
-- with from: readpast_job_dead

-- include: purged_rows.sql
-- with from: readpast_job_archive

SELECT COUNT_BIG(*) AS deleted
FROM @purged;
