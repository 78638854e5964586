-- Parents (@ids, a JSON array of ids) that have finished: their outcome (3 SUCCEEDED, 5
-- CANCELLED, 4 DEAD). An id in neither table is unknown. Plain reads by primary key (run after
-- job_dep_lock_parents, which waited for every parent being moved right then to commit).
SET NOCOUNT ON;

SELECT
    a.id,
    a.status
FROM readpast_job_archive AS a
WHERE a.id IN (SELECT TRY_CONVERT(bigint, e.value) FROM OPENJSON(@ids) AS e)
UNION ALL
SELECT
    d.id,
    d.status
FROM readpast_job_dead AS d
WHERE d.id IN (SELECT TRY_CONVERT(bigint, e.value) FROM OPENJSON(@ids) AS e);
