-- Every queue row (inactive ones only when :include_inactive) with its job counts and the
-- age of its oldest due job, all on the database clock. Counts read the claim and active
-- partial indexes.
SELECT q.*,
       COALESCE(h.pending_count, 0) AS pending_count,
       COALESCE(h.scheduled_count, 0) AS scheduled_count,
       COALESCE(h.leased_count, 0) AS leased_count,
       COALESCE(h.processing_count, 0) AS processing_count,
       COALESCE(d.dead_count, 0) AS dead_count,
       h.oldest_due_at,
       EXTRACT(EPOCH FROM (now() - h.oldest_due_at)) AS lag_seconds
FROM readpast_queue AS q
LEFT JOIN (
    SELECT j.queue,
           count(*) FILTER (WHERE j.status IN (0, 6) AND j.due_at <= now()) AS pending_count,
           count(*) FILTER (WHERE j.status IN (0, 6) AND j.due_at > now()) AS scheduled_count,
           count(*) FILTER (WHERE j.status = 1) AS leased_count,
           count(*) FILTER (WHERE j.status = 2) AS processing_count,
           min(j.due_at) FILTER (WHERE j.status IN (0, 6) AND j.due_at <= now()) AS oldest_due_at
    FROM readpast_job AS j
    GROUP BY j.queue
) AS h ON h.queue = q.name
LEFT JOIN (
    SELECT queue, count(*) AS dead_count FROM readpast_job_dead GROUP BY queue
) AS d ON d.queue = q.name
WHERE (q.active OR CAST(:include_inactive AS boolean))
  AND EXISTS (SELECT 1 FROM readpast_queue_live AS l WHERE l.name = q.name)
ORDER BY q.name
