-- Which of these queue names (@queues JSON array) have a queue row (made by the first enqueue
-- or by queue settings)? Each name is returned as asked, so the database's collation decides,
-- as it does in the claim.
SET NOCOUNT ON;

SELECT CAST(f.value AS nvarchar(400)) AS name
FROM OPENJSON(@queues) AS f
WHERE EXISTS (
    SELECT 1
    FROM readpast_queue AS q
    WHERE q.name = CAST(f.value AS nvarchar(400))
);
