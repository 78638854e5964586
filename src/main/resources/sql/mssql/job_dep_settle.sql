-- Parents of kind @kind ('j' jobs, 'b' batches; @parents a JSON array of ids) have settled
-- with @outcome (3 succeeded; 4 or 5 did not). Their open edges take the outcome, once, and
-- each waiting child counts them off: a child with no parent left is released, PENDING (0)
-- or, if its runAt is still ahead, scheduled (6). A child that must be cancelled (the outcome
-- is not 3 and its policy is 0) stays WAITING here and is returned with cancel = 1: the caller
-- cancels it (job_cancel_many) in this same transaction. Two steps: the edges are updated
-- (primary-key seek on kind and parent) with their children OUTPUT ... INTO @settled, then the
-- children, counted, are updated by primary-key seek, OUTPUT ... INTO @released, and read back
-- as the one result set (id, queue, status, due_at, cancel). Both steps wait for row locks
-- (never READPAST: settling skips nobody); children are updated under their row locks, so two
-- parents settling at once count off one after the other and exactly one of them releases the
-- child. The counts are read by subquery (Babelfish loses a joined table named in the SET list
-- of an UPDATE ... OUTPUT INTO).
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @settling TABLE (id bigint NOT NULL PRIMARY KEY);
-- one row per settled edge: a child waiting on two of these parents is here twice
DECLARE @settled TABLE (child_id bigint NOT NULL);
DECLARE @counted TABLE (child_id bigint NOT NULL PRIMARY KEY, n int NOT NULL);
DECLARE @released TABLE (
    id bigint NOT NULL PRIMARY KEY,
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    status tinyint NOT NULL,
    due_at datetime2(6) NOT NULL,
    dep_policy tinyint NOT NULL
);

INSERT INTO @settling (id)
SELECT DISTINCT TRY_CONVERT(bigint, e.value)
FROM OPENJSON(@parents) AS e
WHERE TRY_CONVERT(bigint, e.value) IS NOT NULL;

UPDATE d
SET d.outcome = CAST(@outcome AS tinyint)
OUTPUT inserted.child_id INTO @settled (child_id)
FROM @settling AS p
-- a join, not IN (subquery): FORCESEEK with IN (subquery) can fail to plan (error 8622)
INNER JOIN readpast_job_dep AS d WITH (ROWLOCK, FORCESEEK)
    ON d.parent_kind = CAST(@kind AS nchar(1)) AND d.parent_id = p.id
WHERE d.outcome IS NULL;

INSERT INTO @counted (child_id, n)
SELECT
    s.child_id,
    COUNT(*) AS n
FROM @settled AS s
GROUP BY s.child_id;

-- the counts are read by subquery, not from the joined table variable: Babelfish loses a joined
-- table named in the SET list of an UPDATE ... FROM ("missing FROM-clause entry")
UPDATE j
SET
    j.deps_left = CASE
        WHEN @outcome <> 3 AND j.dep_policy = 0 THEN j.deps_left
        ELSE j.deps_left - (SELECT x.n FROM @counted AS x WHERE x.child_id = j.id)
    END,
    j.status = CASE
        WHEN @outcome <> 3 AND j.dep_policy = 0 THEN 7
        WHEN j.deps_left - (SELECT x.n FROM @counted AS x WHERE x.child_id = j.id) > 0 THEN 7
        WHEN j.due_at > SYSUTCDATETIME() THEN 6
        ELSE 0
    END,
    j.updated_at = SYSUTCDATETIME()
OUTPUT inserted.id, inserted.queue, inserted.status, inserted.due_at, inserted.dep_policy
INTO @released (id, queue, status, due_at, dep_policy)
FROM @counted AS c
-- a join, not IN (subquery): FORCESEEK with IN (subquery) can fail to plan (error 8622)
INNER JOIN readpast_job AS j WITH (ROWLOCK, FORCESEEK) ON j.id = c.child_id
WHERE j.status = 7;

SELECT
    r.id,
    r.queue,
    r.status,
    r.due_at,
    CAST(CASE WHEN @outcome <> 3 AND r.dep_policy = 0 THEN 1 ELSE 0 END AS bit) AS cancel
FROM @released AS r
ORDER BY r.id ASC;
