-- Extends the lease of the holder. The first heartbeat moves LEASED to PROCESSING.
-- Touches no indexed column after that first one, so it stays a HOT update.
UPDATE readpast_job
SET status = 2,
    started_at = COALESCE(started_at, now()),
    heartbeat_at = now(),
    lease_seconds = COALESCE(CAST(:lease_seconds AS integer), lease_seconds),
    -- never past the job's deadline (timeoutSeconds, set by the claim; LEAST skips a NULL)
    lease_expires_at = LEAST(now() + COALESCE(CAST(:lease_seconds AS integer), lease_seconds) * interval '1 second',
                             deadline_at),
    progress = COALESCE(:progress, progress),
    updated_at = now()
WHERE id = :id
  AND lease_id = CAST(:lease_id AS uuid)
  AND status IN (1, 2)
  -- the lease still runs (database clock): an expired one is lost, swept or not
  AND lease_expires_at > now()
RETURNING *
