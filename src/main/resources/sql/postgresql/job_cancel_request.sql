-- Cancel a job a worker holds: flag it; the worker sees the flag on its next heartbeat, and
-- the job becomes CANCELLED when the worker fails or releases it, or its lease expires.
UPDATE readpast_job
SET cancel_requested = true,
    modified_by = :modified_by,
    updated_at = now()
WHERE id = :id
  AND status IN (1, 2)
RETURNING *
