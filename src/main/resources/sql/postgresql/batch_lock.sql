-- A batch, its row locked to the end of the transaction: the caller decides from these
-- counts whether this change finishes or fires the batch (batch_update), and nobody else can
-- decide the same in between. Waits for the lock: settling never skips a batch.
SELECT * FROM readpast_batch WHERE id = :id FOR UPDATE
