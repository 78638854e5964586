-- Dependency edges: @edges is a JSON array of {"kind" ("j" or "b"), "parent", "child",
-- "outcome" (null: the parent has not settled)}. Only the edges not there yet are inserted
-- (PostgreSQL's ON CONFLICT DO NOTHING; an edge repeated in @edges counts once, the first one
-- wins). The child of every edge is a job this transaction inserted, so no other transaction
-- writes its edges: a plain NOT EXISTS is enough (no HOLDLOCK, whose key-range locks would make
-- two enqueues naming the same parent wait on each other), and the primary key is the backstop.
-- No result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @edge TABLE (
    parent_kind nchar(1) COLLATE Latin1_General_100_BIN2 NOT NULL,
    parent_id bigint NOT NULL,
    child_id bigint NOT NULL,
    outcome tinyint NULL,
    PRIMARY KEY (parent_kind, parent_id, child_id)
);

INSERT INTO @edge (parent_kind, parent_id, child_id, outcome)
SELECT
    x.parent_kind,
    x.parent_id,
    x.child_id,
    x.outcome
FROM (
    SELECT
        k.parent_kind,
        k.parent_id,
        k.child_id,
        TRY_CONVERT(tinyint, JSON_VALUE(i.value, '$.outcome')) AS outcome,
        ROW_NUMBER() OVER (
            PARTITION BY k.parent_kind, k.parent_id, k.child_id
            ORDER BY CAST(i.[key] AS int)
        ) AS n
    FROM OPENJSON(@edges) AS i
    CROSS APPLY (
        SELECT
            CAST(JSON_VALUE(i.value, '$.kind') AS nchar(1)) COLLATE Latin1_General_100_BIN2 AS parent_kind,
            TRY_CONVERT(bigint, JSON_VALUE(i.value, '$.parent')) AS parent_id,
            TRY_CONVERT(bigint, JSON_VALUE(i.value, '$.child')) AS child_id
    ) AS k
) AS x
WHERE x.parent_kind IS NOT NULL
    AND x.parent_id IS NOT NULL
    AND x.child_id IS NOT NULL
    AND x.n = 1;

INSERT INTO readpast_job_dep (parent_kind, parent_id, child_id, outcome)
SELECT
    e.parent_kind,
    e.parent_id,
    e.child_id,
    e.outcome
FROM @edge AS e
WHERE NOT EXISTS (
    SELECT 1
    FROM readpast_job_dep AS d
    WHERE d.parent_kind = e.parent_kind
        AND d.parent_id = e.parent_id
        AND d.child_id = e.child_id
);
