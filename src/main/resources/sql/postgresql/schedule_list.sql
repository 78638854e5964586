-- Schedules by name, keyset pagination: :after is the last name of the previous page.
SELECT s.*
FROM readpast_schedule AS s
WHERE CAST(:after AS text) IS NULL OR s.name > :after
ORDER BY s.name
LIMIT :limit
