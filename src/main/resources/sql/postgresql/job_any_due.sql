-- The shared long-poll check, one statement per instance per check, and only while claims
-- wait. For each wanted queue (not paused, active, in :queues, a JSON array; NULL = every
-- queue) that has pending jobs: next_due_at, when its earliest pending job is (or was) due;
-- due_now, whether that is now or earlier (a job is claimable now); db_now, the database
-- clock. The earliest due time is the least of the first entries of each priority in the
-- claim index (priority DESC, due_at, id): one index seek per distinct priority (a loose scan),
-- so that neither a large backlog of future jobs nor one of due jobs is read. The poller wakes
-- the waiters of due queues and sleeps until the earliest next_due_at (or until told of work).
SELECT q.name, nd.next_due_at <= now() AS due_now, nd.next_due_at, now() AS db_now
FROM readpast_queue AS q
CROSS JOIN LATERAL (
    WITH RECURSIVE p (priority) AS (
        (SELECT j.priority FROM readpast_job AS j
         WHERE j.queue = q.name AND j.status = 0
         ORDER BY j.priority DESC LIMIT 1)
        UNION ALL
        SELECT (SELECT j.priority FROM readpast_job AS j
                WHERE j.queue = q.name AND j.status = 0 AND j.priority < p.priority
                ORDER BY j.priority DESC LIMIT 1)
        FROM p
        WHERE p.priority IS NOT NULL
    )
    SELECT min((SELECT j.due_at FROM readpast_job AS j
                WHERE j.queue = q.name AND j.status = 0 AND j.priority = p.priority
                ORDER BY j.due_at LIMIT 1)) AS next_due_at
    FROM p
    WHERE p.priority IS NOT NULL
) AS nd
WHERE NOT q.paused
  AND q.active
  AND (CAST(:queues AS jsonb) IS NULL
       OR q.name IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))
  AND nd.next_due_at IS NOT NULL
