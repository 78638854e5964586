-- The batch acknowledgement's first part (job_complete_many, job_complete_rows): the common
-- table expressions items (:items, a JSON array of {"id", "lease_id", "result" (JSON text or
-- null)}, an item repeated counting once), moved (the held jobs deleted from the hot table, each
-- with its item's result as new_result; with :linked false a job of a batch, or one that others
-- wait on, is left alone) and hook (their completion webhooks into the outbox). The including
-- statement writes WITH before it and the archive's insert after it.
items AS (
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
)
