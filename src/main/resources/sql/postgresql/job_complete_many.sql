-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- Batch acknowledgement: every item whose lease is held moves to the archive as SUCCEEDED
-- (or is deleted, when its queue's onSuccess is delete), in one statement. :items is a JSON array of {"id", "lease_id", "result" (JSON text or null)}.
-- Returns the ids that were completed; the caller classifies the rest. Completion webhooks
-- (the job's URL, else its queue's) go into the outbox in the same statement.
WITH
-- include: batch_ack.sql
,
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
