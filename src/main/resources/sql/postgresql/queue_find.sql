-- Which of these queue names (:queues JSON array) have a queue row (made by the first enqueue
-- or by queue settings)? Each name is returned as asked, so the database's own comparison
-- decides, as it does in the claim.
SELECT n.name
FROM jsonb_array_elements_text(CAST(:queues AS jsonb)) AS n (name)
WHERE EXISTS (SELECT 1 FROM readpast_queue_live AS q WHERE q.name = n.name)
