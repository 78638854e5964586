-- The batches a new job names in dependsOn (@ids, a JSON array of ids), marked as having
-- dependents and locked to the end of the transaction (the UPDATE's X locks): none finishes
-- before the job's edges are in, and whichever finishes after sees them. Waits for the rows
-- (no READPAST). Returns each one found, with its outcome so far (finished_at, dead,
-- cancelled), in id order. The ids go into a table variable first, so that each row is reached
-- by a seek on the primary key; the updated rows go OUTPUT ... INTO a table variable.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @parent TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @locked TABLE (
    id bigint NOT NULL PRIMARY KEY,
    finished_at datetime2(6) NULL,
    dead int NOT NULL,
    cancelled int NOT NULL
);

INSERT INTO @parent (id)
SELECT DISTINCT TRY_CONVERT(bigint, e.value)
FROM OPENJSON(@ids) AS e
WHERE TRY_CONVERT(bigint, e.value) IS NOT NULL;

UPDATE b
SET b.has_dependents = 1
OUTPUT inserted.id, inserted.finished_at, inserted.dead, inserted.cancelled
INTO @locked (id, finished_at, dead, cancelled)
FROM @parent AS p
-- a join, not IN (subquery): FORCESEEK with IN (subquery) can fail to plan (error 8622)
INNER JOIN readpast_batch AS b WITH (ROWLOCK, FORCESEEK) ON b.id = p.id;

SELECT
    l.id,
    l.finished_at,
    l.dead,
    l.cancelled
FROM @locked AS l
ORDER BY l.id ASC;
