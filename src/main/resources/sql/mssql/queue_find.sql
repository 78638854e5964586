-- Which of these queue names (@queues JSON array) have a queue row (made by the first enqueue
-- or by queue settings)? Each name is returned as asked, so the database's collation decides,
-- as it does in the claim. A queue row another transaction is writing (created in a
-- transaction still open) is skipped, not waited for: it counts as not there yet.
SET NOCOUNT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT CAST(f.value AS nvarchar(400)) AS name
FROM OPENJSON(@queues) AS f
WHERE EXISTS (
    SELECT 1
    FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE
        q.name = CAST(f.value AS nvarchar(400))
        AND EXISTS (SELECT 1 FROM readpast_queue_live AS l WHERE l.name = q.name)
);
