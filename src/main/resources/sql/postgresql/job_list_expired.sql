-- Leases past their expiry (database clock). Reads the small leased/processing set only.
SELECT id, lease_id, attempt, max_attempts, queue
FROM readpast_job
WHERE status IN (1, 2)
  AND lease_expires_at <= now()
ORDER BY lease_expires_at
LIMIT :limit
