-- DELETE /jobs/{id}: removes a finished (archived or dead) job for good.
WITH a AS (
    DELETE FROM readpast_job_archive WHERE id = :id RETURNING id
),
d AS (
    DELETE FROM readpast_job_dead WHERE id = :id RETURNING id
)
SELECT id FROM a
UNION ALL
SELECT id FROM d
