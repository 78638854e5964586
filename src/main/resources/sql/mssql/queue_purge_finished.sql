-- DELETE /queues/NAME?purge=true, before the deletion: up to @limit of the queue's dead letters
-- and up to @limit of its finished (archived) jobs deleted for good, as DELETE /jobs/ID deletes
-- one, in a transaction of their own; returns how many. Each table is reached by a seek of its
-- (queue, id) index, in id order; rows another transaction holds (a retention sweeper) are
-- skipped with READPAST, never waited for. The caller repeats until a pass deletes nothing.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @purged TABLE (id bigint NOT NULL);

-- the rows to go are a derived table joined by primary key, not a WITH clause the DELETE
-- targets (Babelfish overflows its stack on WITH ... DELETE ... OUTPUT INTO)
DELETE x
OUTPUT deleted.id INTO @purged (id)
FROM readpast_job_dead AS x WITH (ROWLOCK, READPAST, FORCESEEK)
INNER JOIN (
    SELECT TOP (@limit) y.id
    FROM readpast_job_dead AS y WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE y.queue = @name
    ORDER BY y.id
) AS d ON x.id = d.id;

DELETE x
OUTPUT deleted.id INTO @purged (id)
FROM readpast_job_archive AS x WITH (ROWLOCK, READPAST, FORCESEEK)
INNER JOIN (
    SELECT TOP (@limit) y.id
    FROM readpast_job_archive AS y WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE y.queue = @name
    ORDER BY y.id
) AS a ON x.id = a.id;

SELECT COUNT_BIG(*) AS deleted
FROM @purged;
