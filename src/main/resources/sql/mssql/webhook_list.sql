-- Deliveries newest first, optionally of one status (@status code or NULL), keyset pagination
-- on the internal sequence: @after is the previous page's last one. OPTION (RECOMPILE) lets
-- each call get a plan for the filters it uses.
SET NOCOUNT ON;

SELECT TOP (@limit) w.*
FROM readpast_webhook AS w
WHERE (@status IS NULL OR w.status = @status)
    AND (@after IS NULL OR w.id < @after)
ORDER BY w.id DESC
OPTION (RECOMPILE);
