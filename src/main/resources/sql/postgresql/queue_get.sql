-- One queue's settings and job counts.
SELECT q.*,
       (SELECT count(*) FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 0 AND j.due_at <= now()) AS pending_count,
       (SELECT count(*) FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 0 AND j.due_at > now()) AS scheduled_count,
       (SELECT count(*) FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 1) AS leased_count,
       (SELECT count(*) FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 2) AS processing_count,
       (SELECT count(*) FROM readpast_job_dead AS d WHERE d.queue = q.name) AS dead_count,
       (SELECT min(j.due_at) FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 0 AND j.due_at <= now()) AS oldest_due_at
FROM readpast_queue AS q
WHERE q.name = :name
