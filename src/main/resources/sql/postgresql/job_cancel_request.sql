-- Cancel a job a worker holds: flag it; the worker sees the flag on its next heartbeat, and
-- the job becomes CANCELLED when the worker fails or releases it, or its lease expires.
-- :skip_locked (a bulk cancel) skips a row another transaction holds at this moment (the
-- worker's heartbeat or acknowledgement): no row, nothing waited for.
WITH free AS (
    SELECT f.id FROM readpast_job AS f
    WHERE f.id = :id
      AND f.status IN (1, 2)
      AND CAST(:skip_locked AS boolean)
    FOR UPDATE SKIP LOCKED
)
UPDATE readpast_job
SET cancel_requested = true,
    modified_by = :modified_by,
    updated_at = now()
WHERE id = :id
  AND status IN (1, 2)
  AND (NOT CAST(:skip_locked AS boolean) OR id IN (SELECT free.id FROM free))
RETURNING *
