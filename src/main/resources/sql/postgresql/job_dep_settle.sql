-- Parents of kind :kind ('j' jobs, 'b' batches; :parents a JSON array of ids) have settled
-- with :outcome (3 succeeded; 4 or 5 did not). Their open edges take the outcome, once, and
-- each waiting child counts them off: a child with no parent left is released, PENDING (0)
-- or, if its runAt is still ahead, scheduled (6). A child that must be cancelled (the outcome
-- is not 3 and its policy is 0) stays WAITING here and is returned with cancel = true: the
-- caller cancels it (job_cancel_many) in this same transaction. Children are updated under
-- their row locks, so two parents settling at once count off one after the other and exactly
-- one of them releases the child.
WITH edges AS (
    UPDATE readpast_job_dep AS d
    SET outcome = CAST(:outcome AS smallint)
    WHERE d.parent_kind = CAST(:kind AS char(1))
      AND d.parent_id IN (SELECT CAST(x AS bigint) FROM jsonb_array_elements_text(CAST(:parents AS jsonb)) AS x)
      AND d.outcome IS NULL
    RETURNING d.child_id
),
counted AS (
    SELECT e.child_id, count(*) AS n FROM edges AS e GROUP BY e.child_id
)
UPDATE readpast_job AS j
SET deps_left = CASE WHEN CAST(:outcome AS smallint) <> 3 AND j.dep_policy = 0 THEN j.deps_left
                     ELSE j.deps_left - c.n END,
    status = CASE WHEN CAST(:outcome AS smallint) <> 3 AND j.dep_policy = 0 THEN 7
                  WHEN j.deps_left - c.n > 0 THEN 7
                  WHEN j.due_at > now() THEN 6
                  ELSE 0 END,
    updated_at = now()
FROM counted AS c
WHERE j.id = c.child_id
  AND j.status = 7
RETURNING j.id, j.queue, j.status, j.due_at,
          (CAST(:outcome AS smallint) <> 3 AND j.dep_policy = 0) AS cancel
