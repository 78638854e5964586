-- Parents (:ids, a JSON array) that have finished: their outcome (3 SUCCEEDED, 5 CANCELLED,
-- 4 DEAD). An id in neither table is unknown.
SELECT a.id, a.status
FROM readpast_job_archive AS a
WHERE a.id IN (SELECT CAST(x AS bigint) FROM jsonb_array_elements_text(CAST(:ids AS jsonb)) AS x)
UNION ALL
SELECT d.id, d.status
FROM readpast_job_dead AS d
WHERE d.id IN (SELECT CAST(x AS bigint) FROM jsonb_array_elements_text(CAST(:ids AS jsonb)) AS x)
