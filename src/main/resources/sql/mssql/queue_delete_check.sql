-- DELETE /queues/NAME, first, in the deletion's transaction: the queue's row, locked with UPDLOCK
-- (a PUT, pause or delete of the same queue waits; claims read queue rows with READPAST, enqueues
-- take no lasting lock on it), if it is a queue to show (the view readpast_queue_live), with what still
-- holds it: unfinished jobs, dead letters and finished jobs, each counted up to 1001 (the answer
-- says "over 1000"), and the schedules that enqueue into it. The counts are read with NOLOCK:
-- they decide whether it may go, they are not what keeps jobs claimable (the row stays, a
-- tombstone, so a job enqueued meanwhile is never lost).
SET NOCOUNT ON;
SET XACT_ABORT ON;

SELECT
    q.name,
    (
        SELECT COUNT_BIG(*) FROM (
            SELECT TOP (1001) 1 AS one FROM readpast_job AS j WITH (NOLOCK) WHERE j.queue = q.name
        ) AS x
    ) AS unfinished,
    (
        SELECT COUNT_BIG(*) FROM (
            SELECT TOP (1001) 1 AS one FROM readpast_job_dead AS d WITH (NOLOCK) WHERE d.queue = q.name
        ) AS x
    ) AS dead,
    (
        SELECT COUNT_BIG(*) FROM (
            SELECT TOP (1001) 1 AS one FROM readpast_job_archive AS a WITH (NOLOCK) WHERE a.queue = q.name
        ) AS x
    ) AS finished,
    (SELECT COUNT_BIG(*) FROM readpast_schedule AS s WITH (NOLOCK) WHERE s.queue = q.name) AS schedules
FROM readpast_queue AS q WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK)
WHERE
    q.name = @name
    AND EXISTS (SELECT 1 FROM readpast_queue_live AS l WHERE l.name = q.name);
