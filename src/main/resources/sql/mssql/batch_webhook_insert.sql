-- A fired batch's webhook, into the outbox in the transaction that fired it (job_id holds
-- the batch id for the event batch.fired). No result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

INSERT INTO readpast_webhook (job_id, queue, event, url)
VALUES (@batch_id, @queue, N'batch.fired', @url);
