-- A cancelled batch's jobs at work (LEASED, PROCESSING) get cancel requested: their workers
-- see it on the next heartbeat, and the job ends CANCELLED when they give it up.
UPDATE readpast_job
SET cancel_requested = true, modified_by = COALESCE(:modified_by, modified_by), updated_at = now()
WHERE batch_id = :id
  AND status IN (1, 2)
  AND NOT cancel_requested
