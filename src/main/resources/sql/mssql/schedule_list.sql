-- Schedules by name, keyset pagination: @after is the last name of the previous page.
SET NOCOUNT ON;

SELECT TOP (@limit) s.*
FROM readpast_schedule AS s
WHERE @after IS NULL OR s.name > @after
ORDER BY s.name ASC;
