-- A new batch (docs/batches.md): :queues the JSON array of its queues, :fire_on 0 (every job
-- finished), 1 (every job succeeded) or 2 (the first DEAD job), :callback the job to enqueue
-- when it fires (JSON, null: none), :webhook_url where to POST then (null: none). Its jobs
-- are inserted after it, in the same transaction, and counted by batch_update.
INSERT INTO readpast_batch (queues, fire_on, callback, webhook_url, created_by)
VALUES (:queues, CAST(:fire_on AS smallint), :callback, :webhook_url, :created_by)
RETURNING *
