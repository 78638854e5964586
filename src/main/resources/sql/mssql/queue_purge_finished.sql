-- DELETE /queues/NAME?purge=true, before the deletion: up to @limit of the queue's dead letters
-- and up to @limit of its finished (archived) jobs deleted for good, as DELETE /jobs/ID deletes
-- one, in a transaction of their own; returns how many. Each table is reached by a seek of its
-- (queue, id) index, in id order; rows another transaction holds (a retention sweeper) are
-- skipped with READPAST, never waited for. The caller repeats until a pass deletes nothing.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @purged TABLE (id bigint NOT NULL);

WITH d AS (
    SELECT TOP (@limit) x.id
    FROM readpast_job_dead AS x WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE x.queue = @name
    ORDER BY x.id
)

DELETE FROM d
OUTPUT deleted.id INTO @purged (id);

WITH a AS (
    SELECT TOP (@limit) x.id
    FROM readpast_job_archive AS x WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE x.queue = @name
    ORDER BY x.id
)

DELETE FROM a
OUTPUT deleted.id INTO @purged (id);

SELECT COUNT_BIG(*) AS deleted
FROM @purged;
