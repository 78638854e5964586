-- Back to PENDING, due after :delay_ms (a failure with attempts left, or an expired lease):
-- stored as 0 when due at once, else as 6 (scheduled: out of the claim index until a claim
-- promotes it).
-- :error becomes last_error and is appended to errors (the last :keep_errors attempts' errors).
UPDATE readpast_job
SET status = CASE WHEN CAST(:delay_ms AS bigint) > 0 THEN 6 ELSE 0 END,
    due_at = now() + CAST(:delay_ms AS bigint) * interval '1 millisecond',
    worker_id = NULL,
    lease_id = NULL,
    lease_seconds = NULL,
    lease_expires_at = NULL,
    heartbeat_at = NULL,
    last_error = :error,
    errors =
    -- include: errors_appended.sql
    -- with of: readpast_job
    ,
    modified_by = COALESCE(:modified_by, modified_by),
    updated_at = now()
WHERE id = :id
  AND lease_id = CAST(:lease_id AS uuid)
  AND status IN (1, 2)
  AND NOT cancel_requested
  -- the sweeper (:expired_only) settles expired leases only; the holder, running ones only
  AND (CASE WHEN CAST(:expired_only AS boolean) THEN lease_expires_at <= now() ELSE lease_expires_at > now() END)
RETURNING *
