-- DELETE /queues/{name}, first, in the deletion's transaction: the queue's row, locked (a PUT,
-- pause or delete of the same queue waits; claims skip a locked queue row, enqueues never lock
-- it), if it is a queue to show (the view readpast_queue_live), with what still holds it: unfinished
-- jobs, dead letters and finished jobs, each counted up to 1001 (the answer says "over 1000"),
-- and the schedules that enqueue into it. The counts decide whether it may go; they are not what
-- keeps jobs claimable: the row stays (a tombstone), so a job enqueued meanwhile is never lost.
SELECT q.name,
       (SELECT count(*) FROM (SELECT 1 FROM readpast_job AS j WHERE j.queue = q.name LIMIT 1001) AS x) AS unfinished,
       (SELECT count(*) FROM (SELECT 1 FROM readpast_job_dead AS d WHERE d.queue = q.name LIMIT 1001) AS x) AS dead,
       (SELECT count(*) FROM (SELECT 1 FROM readpast_job_archive AS a WHERE a.queue = q.name LIMIT 1001) AS x)
           AS finished,
       (SELECT count(*) FROM readpast_schedule AS s WHERE s.queue = q.name) AS schedules
FROM readpast_queue AS q
WHERE q.name = :name
  AND EXISTS (SELECT 1 FROM readpast_queue_live AS l WHERE l.name = q.name)
FOR UPDATE OF q
