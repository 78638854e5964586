-- An attempt failed (no 2xx, or no answer): back to PENDING, due after :delay_ms, or DEAD when
-- :dead (attempts used up). Guarded by the sender's lease, like webhook_delivered. Returns
-- when the next attempt is due (database clock), for the sender to look again then.
UPDATE readpast_webhook
SET status = CASE WHEN CAST(:dead AS boolean) THEN 3 ELSE 0 END,
    lease_id = NULL,
    due_at = now() + CAST(:delay_ms AS bigint) * interval '1 millisecond',
    last_status = CAST(:status_code AS integer),
    last_error = :error,
    updated_at = now()
WHERE id = :id
  AND lease_id = CAST(:lease_id AS uuid)
  AND status = 1
RETURNING id, due_at
