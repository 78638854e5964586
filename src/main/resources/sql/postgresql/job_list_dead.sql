-- Dead letters newest first (by id), optional queue and type filters, keyset pagination.
SELECT *
FROM readpast_job_dead AS d
WHERE (CAST(:after AS bigint) IS NULL OR d.id < CAST(:after AS bigint))
  AND (CAST(:queue AS text) IS NULL OR d.queue = :queue)
  AND (CAST(:type AS text) IS NULL OR d.type = :type)
ORDER BY d.id DESC
LIMIT :limit
