-- The queue of each job of :ids (a JSON array of job ids), wherever the job is now (hot table,
-- archive or dead letters); ids of no job are left out. A queue-scoped key's lease calls are
-- checked against these before anything else.
SELECT i.id, x.queue
FROM (SELECT DISTINCT CAST(e AS bigint) AS id FROM jsonb_array_elements_text(CAST(:ids AS jsonb)) AS e) AS i
CROSS JOIN LATERAL (
    SELECT j.queue FROM readpast_job AS j WHERE j.id = i.id
    UNION ALL
    SELECT a.queue FROM readpast_job_archive AS a WHERE a.id = i.id
    UNION ALL
    SELECT d.queue FROM readpast_job_dead AS d WHERE d.id = i.id
    LIMIT 1
) AS x
