-- One step of the cycle check: the unsettled parents of the jobs @jobs and of the waiting
-- members of the batches @batches (JSON arrays of ids; NULL: none). The children are gathered
-- first (the jobs, and the WAITING jobs of the batches from the batch index, whose filter the
-- literal "batch_id IS NOT NULL" matches), then their edges are read from the child index.
-- Plain reads.
SET NOCOUNT ON;

SELECT DISTINCT
    d.parent_kind,
    d.parent_id
FROM (
    SELECT TRY_CONVERT(bigint, x.value) AS child_id
    FROM OPENJSON(@jobs) AS x
    UNION
    SELECT j.id AS child_id
    FROM readpast_job AS j
    WHERE j.status = 7
        AND j.batch_id IS NOT NULL
        AND j.batch_id IN (SELECT TRY_CONVERT(bigint, y.value) FROM OPENJSON(@batches) AS y)
) AS c
INNER JOIN readpast_job_dep AS d ON c.child_id = d.child_id
WHERE d.outcome IS NULL;
