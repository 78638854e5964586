-- Single completions merged (POST /jobs/{id}/complete that arrive while one is in flight,
-- readpast.merging.acks): every item of @items whose lease is held moves from the hot table to
-- the archive as SUCCEEDED (3), with its result, in one batch, with its completion webhook in the
-- outbox (include/batch_ack.sql: with @linked = 0, a bit, a job of a batch or one that others
-- wait on is left alone; with 1 it is completed too, in the caller's transaction that settles its
-- batch and dependents, ClaimPath.completeRows). Returns each completed job as SUCCEEDED, as the
-- archive holds it (one result set): each caller answers with its own job's row. An item not
-- returned was not completed; the caller tells why.
SET NOCOUNT ON;
SET XACT_ABORT ON;

-- include: batch_ack.sql

-- the jobs as SUCCEEDED, archived or deleted, as the archive holds them
-- include: finished_row.sql
-- with from: @moved AS m INNER JOIN @item AS i ON m.id = i.id AND m.lease_id = i.lease_id
-- with status: 3
-- with result: i.result
-- with modified_by: COALESCE(@modified_by, m.modified_by)
;
