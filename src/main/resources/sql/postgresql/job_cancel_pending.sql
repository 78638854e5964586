-- Cancel a job nobody holds: PENDING (due, or scheduled for later) or WAITING moves to the archive as CANCELLED at once.
-- :skip_locked (a bulk cancel) skips a row another transaction holds at this moment (a claim
-- taking it): no row, nothing waited for. Otherwise the delete waits for that transaction and
-- re-checks the status (a single cancel then flags the job the claim took).
WITH free AS (
    SELECT f.id FROM readpast_job AS f
    WHERE f.id = :id
      AND f.status IN (0, 6, 7)
      AND CAST(:skip_locked AS boolean)
    FOR UPDATE SKIP LOCKED
),
moved AS (
    DELETE FROM readpast_job
    WHERE id = :id
      AND status IN (0, 6, 7)
      AND (NOT CAST(:skip_locked AS boolean) OR id IN (SELECT free.id FROM free))
    RETURNING *
)
-- include: moved_into.sql
-- with into: readpast_job_archive
-- with from: moved
-- with status: 5
-- with modified_by: :modified_by
-- with lease_id: NULL
RETURNING *
