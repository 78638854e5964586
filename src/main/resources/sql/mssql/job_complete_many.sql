-- Batch acknowledgement: every item of @items whose lease is held moves from the hot table to
-- the archive as SUCCEEDED (3), in one batch, with its completion webhook in the outbox (see
-- include/batch_ack.sql). Returns the ids that were completed, their queues and lease ids (one result
-- set, in id order); the caller classifies the rest.
SET NOCOUNT ON;
SET XACT_ABORT ON;

-- include: batch_ack.sql

SELECT
    m.id,
    m.queue,
    m.lease_id
FROM @moved AS m
ORDER BY m.id ASC;
