-- Dependency edges: :edges is a JSON array of {"kind" ("j" or "b"), "parent", "child",
-- "outcome" (null: the parent has not settled)}.
INSERT INTO readpast_job_dep (parent_kind, parent_id, child_id, outcome)
SELECT x.kind, x.parent, x.child, x.outcome
FROM jsonb_to_recordset(CAST(:edges AS jsonb)) AS x(kind char(1), parent bigint, child bigint, outcome smallint)
ON CONFLICT (parent_kind, parent_id, child_id) DO NOTHING
