-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- Single completions merged (POST /jobs/{id}/complete that arrive while one is in flight,
-- readpast.merging.acks): every item whose lease is held moves to the archive as SUCCEEDED (or
-- is deleted, when its queue's onSuccess is delete), in one statement, and comes back as the
-- archive holds it (each caller answers with its own job's row). :items and the move are the
-- batch acknowledgement's (include/batch_ack.sql): with :linked false a job of a batch, or one
-- that others wait on, is left alone; with true it is completed too, in the caller's transaction
-- that settles its batch and dependents (ClaimPath.completeRows). An item not returned was not completed; the caller tells why. Completion
-- webhooks (the job's URL, else its queue's) go into the outbox in the same statement.
WITH
-- include: batch_ack.sql
,
done AS (
    -- the jobs as SUCCEEDED: what the callers get back, and what the archive keeps
    -- include: finished_row.sql
    -- with from: moved
    -- with status: 3
    -- with result: new_result
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
