-- DELETE /jobs/{id}: removes a finished (archived or dead) job for good.
-- The dead letters first, then the archive: the order every other statement that touches both
-- takes (docs/sqlserver.md, "Lock order").
WITH d AS (
    DELETE FROM readpast_job_dead WHERE id = :id RETURNING id
),
a AS (
    DELETE FROM readpast_job_archive WHERE id = :id RETURNING id
)
SELECT id FROM d
UNION ALL
SELECT id FROM a
