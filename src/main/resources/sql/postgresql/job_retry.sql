-- Back to PENDING, due after :delay_ms (a failure with attempts left, or an expired lease).
UPDATE readpast_job
SET status = 0,
    due_at = now() + CAST(:delay_ms AS bigint) * interval '1 millisecond',
    worker_id = NULL,
    lease_id = NULL,
    lease_seconds = NULL,
    lease_expires_at = NULL,
    heartbeat_at = NULL,
    last_error = :error,
    modified_by = COALESCE(:modified_by, modified_by),
    updated_at = now()
WHERE id = :id
  AND lease_id = CAST(:lease_id AS uuid)
  AND status IN (1, 2)
  AND NOT cancel_requested
  AND (NOT CAST(:expired_only AS boolean) OR lease_expires_at <= now())
RETURNING *
