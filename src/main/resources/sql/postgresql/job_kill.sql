-- Retries used up or a fatal error: the job moves to the dead-letter table as DEAD (unless a
-- cancel was requested meanwhile: then it must end CANCELLED, see job_cancel_leased).
-- :error becomes last_error and is appended to errors (the last :keep_errors attempts' errors). Its
-- webhook (the job's URL, else its queue's) goes into the outbox in the same statement.
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id = :id
      AND lease_id = CAST(:lease_id AS uuid)
      AND status IN (1, 2)
      AND NOT cancel_requested
      -- the sweeper (:expired_only) settles expired leases only; the holder, running ones only
      AND (CASE WHEN CAST(:expired_only AS boolean) THEN lease_expires_at <= now() ELSE lease_expires_at > now() END)
    RETURNING *
),
hook AS (
    -- the completion webhook (job's URL, else the queue's), in this same transaction
    INSERT INTO readpast_webhook (job_id, queue, event, url)
    SELECT m.id, m.queue, 'job.dead', COALESCE(m.webhook_url, q.webhook_url)
    FROM moved AS m
    LEFT JOIN readpast_queue AS q ON q.name = m.queue
    WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL
),
appended AS (
    -- the moved jobs with :error appended to their errors (the last :keep_errors attempts')
    SELECT moved.*,
    -- include: errors_appended.sql
    -- with of: moved
    AS appended_errors
    FROM moved
)
-- include: moved_into.sql
-- with into: readpast_job_dead
-- with from: appended
-- with status: 4
-- with last_error: :error
-- with modified_by: COALESCE(:modified_by, modified_by)
-- with errors: appended_errors
RETURNING *
