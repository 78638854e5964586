-- Retention of batches (docs/batches.md): the retention task deletes batches that finished
-- longer ago than readpast.retention.batches, oldest first, with their jobs still in the
-- archive or the dead letters. It seeks this index.
CREATE INDEX ix_readpast_batch_finished ON readpast_batch (finished_at) WHERE finished_at IS NOT NULL;
