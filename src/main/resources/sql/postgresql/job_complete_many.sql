-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- Batch acknowledgement: every item whose lease is held moves to the archive as SUCCEEDED
-- (or is deleted, when its queue's onSuccess is delete), in one statement. :items is a JSON array of {"id", "lease_id", "result" (JSON text or null)}.
-- Returns the ids that were completed; the caller classifies the rest. Completion webhooks
-- (the job's URL, else its queue's) go into the outbox in the same statement.
WITH items AS (
    -- an item repeated in the batch counts once, its first occurrence (so which result is
    -- kept does not depend on the join order the plan picks)
    SELECT DISTINCT ON (x.id, x.lease_id) x.id, x.lease_id, x.result
    FROM ROWS FROM (jsonb_to_recordset(CAST(:items AS jsonb)) AS (id bigint, lease_id uuid, result text))
         WITH ORDINALITY AS x(id, lease_id, result, n)
    ORDER BY x.id, x.lease_id, x.n
),
moved AS (
    DELETE FROM readpast_job AS j
    USING items AS i
    WHERE j.id = i.id
      AND j.lease_id = i.lease_id
      -- the lease still runs (database clock): an expired one is lost, swept or not
      AND j.lease_expires_at > now()
      -- held: LEASED or PROCESSING, written "> 0" (the hot table holds 0, 1, 2, 6 and 7, and 6 and 7 have no lease) so
      -- that each item is a primary-key probe; "IN (1, 2)" matches readpast_job_active's
      -- predicate, and with statistics taken while nothing was leased the plan scanned that
      -- whole index (every leased job and every dead entry since the last VACUUM) per batch
      AND j.status > 0
      -- a job of a batch, or one that others wait on, is completed with its settlement (:linked)
      AND (CAST(:linked AS boolean) OR (j.batch_id IS NULL AND NOT j.has_dependents))
    RETURNING j.*, i.result AS new_result
),
hook AS (
    -- the completion webhook (job's URL, else the queue's), in this same transaction
    INSERT INTO readpast_webhook (job_id, queue, event, url)
    SELECT m.id, m.queue, 'job.succeeded', COALESCE(m.webhook_url, q.webhook_url)
    FROM moved AS m
    LEFT JOIN readpast_queue AS q ON q.name = m.queue
    WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL
),
archived AS (
    -- kept in the archive unless its queue deletes succeeded jobs (onSuccess delete); a job of a
    -- batch, or one that others wait on, is kept all the same (its batch and dependants read it)
    -- include: moved_into.sql
    -- with into: readpast_job_archive
    -- with from: moved AS m
    -- with status: 3
    -- with result: new_result
    -- with modified_by: COALESCE(:modified_by, modified_by)
    WHERE m.batch_id IS NOT NULL
       OR m.has_dependents
       OR NOT EXISTS (SELECT 1 FROM readpast_queue AS q WHERE q.name = m.queue AND q.delete_succeeded)
)
SELECT id, queue, lease_id, batch_id, has_dependents
FROM moved
