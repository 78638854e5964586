-- An operator sends a DEAD delivery again: PENDING, due now, attempts from zero, same delivery
-- id (receivers that got it before drop it). No row: there is no DEAD delivery with that id.
UPDATE readpast_webhook
SET status = 0,
    attempt = 0,
    due_at = now(),
    updated_at = now()
WHERE delivery_id = CAST(:delivery_id AS uuid)
  AND status = 3
RETURNING *
