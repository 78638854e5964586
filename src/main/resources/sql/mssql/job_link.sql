-- Jobs just inserted (same transaction) join their batch and wait for their parents: @items
-- is a JSON array of {"id", "batch_id", "deps_left", "policy"}. A job with parents left
-- becomes WAITING (7), outside every claim index; dep_policy 0 cancels it when a parent ends
-- DEAD or CANCELLED, 1 runs it anyway. The items are parsed into a table variable first (short
-- numbers, JSON_VALUE; an item repeated with the same id counts once, the first one wins), the
-- jobs reached by primary-key seek, their values read by subquery (Babelfish loses a joined
-- table named in the SET list of an UPDATE ... OUTPUT INTO), the ids OUTPUT ... INTO a table
-- variable, and the rows read back as the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @link TABLE (
    id bigint NOT NULL PRIMARY KEY,
    batch_id bigint NULL,
    deps_left int NULL,
    dep_policy tinyint NULL
);
DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);

INSERT INTO @link (id, batch_id, deps_left, dep_policy)
SELECT
    x.id,
    x.batch_id,
    x.deps_left,
    x.dep_policy
FROM (
    SELECT
        k.id,
        TRY_CONVERT(bigint, JSON_VALUE(i.value, '$.batch_id')) AS batch_id,
        TRY_CONVERT(int, JSON_VALUE(i.value, '$.deps_left')) AS deps_left,
        TRY_CONVERT(tinyint, JSON_VALUE(i.value, '$.policy')) AS dep_policy,
        ROW_NUMBER() OVER (PARTITION BY k.id ORDER BY CAST(i.[key] AS int)) AS n
    FROM OPENJSON(@items) AS i
    CROSS APPLY (SELECT TRY_CONVERT(bigint, JSON_VALUE(i.value, '$.id')) AS id) AS k
) AS x
WHERE x.id IS NOT NULL
    AND x.n = 1;

-- the values are read by subquery, not from the joined table variable: Babelfish loses a joined
-- table named in the SET list of an UPDATE ... FROM ("missing FROM-clause entry")
UPDATE j
SET
    j.batch_id = (SELECT l.batch_id FROM @link AS l WHERE l.id = j.id),
    j.deps_left = (SELECT l.deps_left FROM @link AS l WHERE l.id = j.id),
    j.dep_policy = (SELECT l.dep_policy FROM @link AS l WHERE l.id = j.id),
    j.status = CASE
        WHEN (SELECT l.deps_left FROM @link AS l WHERE l.id = j.id) > 0 THEN 7
        ELSE j.status
    END
OUTPUT inserted.id INTO @updated (id)
FROM @link AS k
-- a join, not IN (subquery): FORCESEEK with IN (subquery) can fail to plan (error 8622)
INNER JOIN readpast_job AS j WITH (ROWLOCK, FORCESEEK) ON j.id = k.id;

SELECT j.*
FROM readpast_job AS j
INNER JOIN @updated AS u ON j.id = u.id;
