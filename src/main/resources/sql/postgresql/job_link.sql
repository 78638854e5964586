-- Jobs just inserted (same transaction) join their batch and wait for their parents: :items
-- is a JSON array of {"id", "batch_id", "deps_left", "policy"}. A job with parents left
-- becomes WAITING (7), outside every claim index; dep_policy 0 cancels it when a parent ends
-- DEAD or CANCELLED, 1 runs it anyway.
UPDATE readpast_job AS j
SET batch_id = x.batch_id,
    deps_left = x.deps_left,
    dep_policy = x.policy,
    status = CASE WHEN x.deps_left > 0 THEN 7 ELSE j.status END
FROM jsonb_to_recordset(CAST(:items AS jsonb)) AS x(id bigint, batch_id bigint, deps_left integer, policy smallint)
WHERE j.id = x.id
RETURNING j.*
