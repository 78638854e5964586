-- Batch acknowledgement: every item of @items whose lease is held moves from the hot table to
-- the archive as SUCCEEDED (3), in one batch, with its completion webhook in the outbox (see
-- include/batch_ack.sql). With @linked = 0 (a bit) a job of a batch or one that others wait on
-- is left alone; with 1 it is completed too (the caller settles it in the same transaction).
-- Returns the ids that were completed, their queues, lease ids, batch ids and has_dependents
-- (one result set, in id order); the caller classifies the rest.
SET NOCOUNT ON;
SET XACT_ABORT ON;

-- include: batch_ack.sql

SELECT
    m.id,
    m.queue,
    m.lease_id,
    m.batch_id,
    m.has_dependents
FROM @moved AS m
ORDER BY m.id ASC;
