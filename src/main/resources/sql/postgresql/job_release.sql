-- The holder gives the job back unworked (shutting down): PENDING again, the attempt the
-- claim counted is given back, and the job keeps its place in line; with :delay_ms > 0 it is
-- due that long from now instead (stored as 6, scheduled, as job_retry stores a delayed retry).
UPDATE readpast_job
SET status = CASE WHEN CAST(:delay_ms AS bigint) > 0 THEN 6 ELSE 0 END,
    due_at = CASE WHEN CAST(:delay_ms AS bigint) > 0
                  THEN now() + CAST(:delay_ms AS bigint) * interval '1 millisecond'
                  ELSE due_at END,
    attempt = GREATEST(attempt - 1, 0),
    worker_id = NULL,
    lease_id = NULL,
    lease_seconds = NULL,
    lease_expires_at = NULL,
    heartbeat_at = NULL,
    modified_by = COALESCE(:modified_by, modified_by),
    updated_at = now()
WHERE id = :id
  AND lease_id = CAST(:lease_id AS uuid)
  AND status IN (1, 2)
  -- the lease still runs (database clock): an expired one is lost, swept or not
  AND lease_expires_at > now()
  AND NOT cancel_requested
RETURNING *
