-- Batches newest first; keyset pagination: :after is the last id of the previous page (null:
-- from the newest).
SELECT b.*
FROM readpast_batch AS b
WHERE (CAST(:after AS bigint) IS NULL OR b.id < CAST(:after AS bigint))
ORDER BY b.id DESC
LIMIT :limit
