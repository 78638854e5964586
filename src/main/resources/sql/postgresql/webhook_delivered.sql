-- The receiver answered 2xx: DELIVERED. Guarded by the sender's lease; no row means the lease
-- expired and another sender took the delivery over (it will send it again: at least once).
UPDATE readpast_webhook
SET status = 2,
    lease_id = NULL,
    last_status = CAST(:status_code AS integer),
    last_error = NULL,
    delivered_at = now(),
    updated_at = now()
WHERE id = :id
  AND lease_id = CAST(:lease_id AS uuid)
  AND status = 1
RETURNING id
