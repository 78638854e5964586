-- A cancel-requested job comes back from its worker (fail, release) or its lease expires:
-- it moves to the archive as CANCELLED. Guarded like every lease-bound change. A given :error
-- becomes last_error and is appended to errors (a release gives none).
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id = :id
      AND lease_id = CAST(:lease_id AS uuid)
      AND status IN (1, 2)
      AND cancel_requested
      -- the sweeper (:expired_only) settles expired leases only; the holder, running ones only
      AND (CASE WHEN CAST(:expired_only AS boolean) THEN lease_expires_at <= now() ELSE lease_expires_at > now() END)
    RETURNING *
),
appended AS (
    -- the moved jobs with :error, when given, appended to their errors (the last :keep_errors attempts')
    SELECT moved.*,
           CASE WHEN CAST(:error AS text) IS NULL THEN moved.errors ELSE
           -- include: errors_appended.sql
           -- with of: moved
           END AS appended_errors
    FROM moved
)
-- include: moved_into.sql
-- with into: readpast_job_archive
-- with from: appended
-- with status: 5
-- with last_error: COALESCE(:error, last_error)
-- with modified_by: COALESCE(:modified_by, modified_by)
-- with errors: appended_errors
RETURNING *
