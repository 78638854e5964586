-- The uniqueness key of a uniqueFor enqueue. On SQL Server the broker's own key stands: the
-- idempotency key's, or its digest of queue, type and the payload in a canonical form
-- (Enqueuer.uniqueKey: object members in any order count as the same payload). T-SQL has no
-- canonical JSON form to compute that from, so readpast_enqueue digests the payload's text as
-- given instead (docs/sql-enqueue.md). Nothing is returned for a key without its parts.
SELECT CASE
    WHEN @queue IS NULL OR @type IS NULL OR @payload IS NULL THEN NULL
    ELSE CAST(@unique_key AS nvarchar(210))
END AS unique_key;
