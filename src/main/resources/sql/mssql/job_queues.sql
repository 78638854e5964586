-- The queue of each job of @ids (a JSON array of job ids), wherever the job is now (hot table,
-- archive or dead letters); ids of no job are left out. A queue-scoped key's lease calls are
-- checked against these before anything else. Plain reads by primary key.
SET NOCOUNT ON;

SELECT
    i.id,
    x.queue
FROM (
    SELECT DISTINCT TRY_CONVERT(bigint, e.value) AS id
    FROM OPENJSON(@ids) AS e
) AS i
CROSS APPLY (
    SELECT TOP (1) u.queue
    FROM (
        SELECT j.queue FROM readpast_job AS j WHERE j.id = i.id
        UNION ALL
        SELECT a.queue FROM readpast_job_archive AS a WHERE a.id = i.id
        UNION ALL
        SELECT d.queue FROM readpast_job_dead AS d WHERE d.id = i.id
    ) AS u
) AS x
WHERE i.id IS NOT NULL;
