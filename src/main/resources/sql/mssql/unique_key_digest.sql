-- The uniqueness key of a uniqueFor enqueue without an idempotency key. On SQL Server the
-- broker's own digest stands (Enqueuer.uniqueKey: object members in any order count as the
-- same payload); T-SQL has no canonical JSON form to compute it from, so readpast.enqueue
-- digests the payload text as given (docs/sql-enqueue.md).
SELECT CAST(@unique_key AS nvarchar(210)) AS unique_key;
