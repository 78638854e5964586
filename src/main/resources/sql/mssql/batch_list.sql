-- Batches newest first, at most @limit; keyset pagination: @after is the last id of the
-- previous page (NULL: from the newest). The clustered primary key is read backwards from
-- @after. OPTION (RECOMPILE), as job_list: a plan for the filter each call uses.
SET NOCOUNT ON;

SELECT TOP (@limit) b.*
FROM readpast_batch AS b
WHERE (@after IS NULL OR b.id < @after)
ORDER BY b.id DESC
OPTION (RECOMPILE);
