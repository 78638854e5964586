-- A new batch (docs/batches.md): @queues the JSON array of its queues, @fire_on 0 (every job
-- finished), 1 (every job succeeded) or 2 (the first DEAD job), @callback the job to enqueue
-- when it fires (JSON, NULL: none), @webhook_url where to POST then (NULL: none). Its jobs are
-- inserted after it, in the same transaction, and counted by batch_update. The new id goes
-- OUTPUT ... INTO a table variable (never a bare OUTPUT), and the row is read back as the one
-- result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @new_batch TABLE (id bigint NOT NULL PRIMARY KEY);

INSERT INTO readpast_batch (queues, fire_on, callback, webhook_url, created_by)
OUTPUT inserted.id INTO @new_batch (id)
VALUES (@queues, CAST(@fire_on AS tinyint), @callback, @webhook_url, @created_by);

SELECT b.*
FROM readpast_batch AS b
INNER JOIN @new_batch AS n ON b.id = n.id;
