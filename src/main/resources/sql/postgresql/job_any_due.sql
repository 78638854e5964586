-- The shared long-poll check, one statement per instance per check, and only while claims
-- wait. For each wanted queue (not paused, active, in :queues, a JSON array; NULL = every
-- queue) that has pending jobs: next_due_at, when its earliest pending job is (or was) due;
-- due_now, whether that is now or earlier (a job is claimable now); db_now, the database
-- clock. A pending row stored as 0 is due (now stands for its time); a scheduled one (6) is due
-- at its due_at, the first entry of the queue in readpast_job_scheduled. Two index probes per
-- queue, whatever the backlog of due or future jobs. The poller wakes the waiters of due queues
-- and sleeps until the earliest next_due_at (or until told of work).
SELECT q.name, nd.next_due_at <= now() AS due_now, nd.next_due_at, now() AS db_now
FROM readpast_queue AS q
CROSS JOIN LATERAL (
    SELECT LEAST(
        (SELECT now() WHERE EXISTS (
            SELECT 1 FROM readpast_job AS j WHERE j.queue = q.name AND j.status = 0)),
        (SELECT s.due_at FROM readpast_job AS s
         WHERE s.queue = q.name AND s.status = 6
         ORDER BY s.due_at LIMIT 1)
    ) AS next_due_at
) AS nd
WHERE NOT q.paused
  AND q.active
  AND (CAST(:queues AS jsonb) IS NULL
       OR q.name IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))
  AND nd.next_due_at IS NOT NULL
