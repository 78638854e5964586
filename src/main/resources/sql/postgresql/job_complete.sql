-- The holder finished the job: it moves from the hot table to the archive as SUCCEEDED (or is
-- deleted, when its queue's onSuccess is delete), and its completion webhook (if the job or its
-- queue names one) goes into the outbox. Returns the job as SUCCEEDED either way.
WITH moved AS (
    DELETE FROM readpast_job
    WHERE id = :id
      AND lease_id = CAST(:lease_id AS uuid)
      AND status IN (1, 2)
      -- the lease still runs (database clock): an expired one is lost, swept or not
      AND lease_expires_at > now()
      -- a job of a batch, or one that others wait on, is completed with its settlement (:linked)
      AND (CAST(:linked AS boolean) OR (batch_id IS NULL AND NOT has_dependents))
    RETURNING *
),
hook AS (
    -- the completion webhook (job's URL, else the queue's), in this same transaction
    INSERT INTO readpast_webhook (job_id, queue, event, url)
    SELECT m.id, m.queue, 'job.succeeded', COALESCE(m.webhook_url, q.webhook_url)
    FROM moved AS m
    LEFT JOIN readpast_queue AS q ON q.name = m.queue
    WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL
),
done AS (
    -- the job as SUCCEEDED: what the caller gets back, and what the archive keeps
    -- include: finished_row.sql
    -- with from: moved
    -- with status: 3
    -- with result: CAST(:result AS text)
    -- with modified_by: COALESCE(:modified_by, modified_by)
),
archived AS (
    -- kept in the archive unless its queue deletes succeeded jobs (onSuccess delete); a job of a
    -- batch, or one that others wait on, is kept all the same (its batch and dependants read it)
    INSERT INTO readpast_job_archive (
        -- include: finished_columns.sql
    )
    SELECT d.*
    FROM done AS d
    WHERE d.batch_id IS NOT NULL
       OR d.has_dependents
       OR NOT EXISTS (SELECT 1 FROM readpast_queue AS q WHERE q.name = d.queue AND q.delete_succeeded)
)
SELECT * FROM done
