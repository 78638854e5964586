-- One step of the cycle check: the unsettled parents of the jobs :jobs and of the waiting
-- members of the batches :batches (JSON arrays of ids).
SELECT DISTINCT d.parent_kind, d.parent_id
FROM readpast_job_dep AS d
WHERE d.outcome IS NULL
  AND (d.child_id IN (SELECT CAST(x AS bigint) FROM jsonb_array_elements_text(CAST(:jobs AS jsonb)) AS x)
       OR d.child_id IN (SELECT j.id FROM readpast_job AS j
                         WHERE j.status = 7
                           AND j.batch_id IN (SELECT CAST(x AS bigint)
                                              FROM jsonb_array_elements_text(CAST(:batches AS jsonb)) AS x)))
