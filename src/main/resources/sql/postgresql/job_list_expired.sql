-- Leases past their expiry (database clock), with what the failure path needs. Reads the
-- small leased/processing set only.
SELECT j.id, j.lease_id, j.attempt, j.max_attempts, j.queue, j.worker_id, j.cancel_requested,
       q.backoff_base_ms, q.backoff_cap_ms
FROM readpast_job AS j
LEFT JOIN readpast_queue AS q ON q.name = j.queue
WHERE j.status IN (1, 2)
  AND j.lease_expires_at <= now()
ORDER BY j.lease_expires_at
LIMIT :limit
