-- A job's or a batch's dependency edges for display: the parents of job @child (NULL: none)
-- and the children of @kind @parent, up to @limit of each: the parents first, by kind and id,
-- then the children by id. Plain reads: the child index for the first part, the primary key
-- for the second.
SET NOCOUNT ON;

SELECT
    e.parent_kind,
    e.parent_id,
    e.child_id,
    e.outcome
FROM (
    SELECT
        1 AS part,
        u.parent_kind,
        u.parent_id,
        u.child_id,
        u.outcome
    FROM (
        SELECT TOP (@limit)
            d.parent_kind,
            d.parent_id,
            d.child_id,
            d.outcome
        FROM readpast_job_dep AS d
        WHERE d.child_id = @child
        ORDER BY d.parent_kind ASC, d.parent_id ASC
    ) AS u
    UNION ALL
    SELECT
        2 AS part,
        v.parent_kind,
        v.parent_id,
        v.child_id,
        v.outcome
    FROM (
        SELECT TOP (@limit)
            d.parent_kind,
            d.parent_id,
            d.child_id,
            d.outcome
        FROM readpast_job_dep AS d
        WHERE d.parent_kind = CAST(@kind AS nchar(1))
            AND d.parent_id = @parent
        ORDER BY d.child_id ASC
    ) AS v
) AS e
ORDER BY e.part ASC, e.parent_kind ASC, e.parent_id ASC, e.child_id ASC;
