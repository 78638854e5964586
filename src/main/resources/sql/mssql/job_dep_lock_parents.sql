-- The jobs a new job names in dependsOn (@ids, a JSON array of ids) that are still in the hot
-- table, marked as having dependents and locked to the end of the transaction (the UPDATE's X
-- locks): none moves before the new job's edges are in, and the statement that moves one later
-- settles them. Waits for the rows (no READPAST: a parent being completed now is found gone
-- once it commits, and then job_dep_finished_parents finds it finished). The ids go into a table
-- variable first, so that each row is reached by a seek on the primary key; returns id and
-- status of each one found, in id order (OUTPUT ... INTO a table variable, then read).
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @parent TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @locked TABLE (id bigint NOT NULL PRIMARY KEY, status tinyint NOT NULL);

INSERT INTO @parent (id)
SELECT DISTINCT TRY_CONVERT(bigint, e.value)
FROM OPENJSON(@ids) AS e
WHERE TRY_CONVERT(bigint, e.value) IS NOT NULL;

UPDATE j
SET j.has_dependents = 1
OUTPUT inserted.id, inserted.status INTO @locked (id, status)
FROM @parent AS p
-- a join, not IN (subquery): FORCESEEK with IN (subquery) can fail to plan (error 8622)
INNER JOIN readpast_job AS j WITH (ROWLOCK, FORCESEEK) ON j.id = p.id;

SELECT
    l.id,
    l.status
FROM @locked AS l
ORDER BY l.id ASC;
