-- One queue's settings, job counts and the age of its oldest due job (database clock).
SELECT q.*,
       (SELECT count(*) FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status IN (0, 6) AND j.due_at <= now()) AS pending_count,
       (SELECT count(*) FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status IN (0, 6) AND j.due_at > now()) AS scheduled_count,
       (SELECT count(*) FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 1) AS leased_count,
       (SELECT count(*) FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 2) AS processing_count,
       (SELECT count(*) FROM readpast_job_dead AS d WHERE d.queue = q.name) AS dead_count,
       o.oldest_due_at,
       EXTRACT(EPOCH FROM (now() - o.oldest_due_at)) AS lag_seconds
FROM readpast_queue AS q
CROSS JOIN LATERAL (
    SELECT min(j.due_at) AS oldest_due_at FROM readpast_job AS j
    WHERE j.queue = q.name AND j.status IN (0, 6) AND j.due_at <= now()
) AS o
WHERE q.name = :name
  AND EXISTS (SELECT 1 FROM readpast_queue_live AS l WHERE l.name = q.name)
