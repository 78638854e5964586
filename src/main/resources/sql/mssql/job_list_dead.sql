-- Dead letters newest first (by id), optional queue and type filters, at most @limit;
-- keyset pagination: @after is the last id of the previous page (NULL for the first page).
-- A plain read: browsing sees everything. OPTION (RECOMPILE) lets each call get a plan for
-- the filters it actually uses (a seek on the queue index when @queue is given).
SET NOCOUNT ON;
SET XACT_ABORT ON;

SELECT TOP (@limit) d.*
FROM readpast_job_dead AS d
WHERE (@after IS NULL OR d.id < @after)
    AND (@queue IS NULL OR d.queue = @queue)
    AND (@type IS NULL OR d.type = @type)
ORDER BY d.id DESC
OPTION (RECOMPILE);
