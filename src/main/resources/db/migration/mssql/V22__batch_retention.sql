-- The twin of PostgreSQL's V22: the retention task deletes batches that finished longer ago
-- than readpast.retention.batches, with their jobs still in the archive or the dead letters,
-- and seeks this filtered index (the statement repeats "finished_at IS NOT NULL" as a literal
-- predicate, so that it can be used).
CREATE INDEX ix_readpast_batch_finished ON readpast_batch (finished_at)
WHERE finished_at IS NOT NULL;
