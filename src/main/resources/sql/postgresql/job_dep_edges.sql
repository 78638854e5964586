-- A job's or a batch's dependency edges for display: the parents of job :child (null: none)
-- and the children of :kind :parent, up to :limit of each.
(SELECT d.parent_kind, d.parent_id, d.child_id, d.outcome
 FROM readpast_job_dep AS d
 WHERE d.child_id = CAST(:child AS bigint)
 ORDER BY d.parent_kind, d.parent_id
 LIMIT :limit)
UNION ALL
(SELECT d.parent_kind, d.parent_id, d.child_id, d.outcome
 FROM readpast_job_dep AS d
 WHERE d.parent_kind = CAST(:kind AS char(1)) AND d.parent_id = CAST(:parent AS bigint)
 ORDER BY d.child_id
 LIMIT :limit)
