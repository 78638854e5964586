-- Cancels the jobs :ids (a JSON array) that nobody holds (PENDING, scheduled or WAITING):
-- they move to the archive as CANCELLED with :reason as their last error. Rows a claim holds
-- right now are waited for and then left alone (they are LEASED by then).
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id IN (SELECT CAST(x AS bigint) FROM jsonb_array_elements_text(CAST(:ids AS jsonb)) AS x)
      AND status IN (0, 6, 7)
    RETURNING *
)
-- include: moved_into.sql
-- with into: readpast_job_archive
-- with from: moved
-- with status: 5
-- with last_error: COALESCE(:reason, last_error)
-- with modified_by: COALESCE(:modified_by, modified_by)
-- with lease_id: NULL
RETURNING id, queue, batch_id, has_dependents
