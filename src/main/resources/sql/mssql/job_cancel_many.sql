-- Cancels the jobs @ids (a JSON array of ids) that nobody holds (PENDING, scheduled or
-- WAITING): they move from the hot table to the archive as CANCELLED (5) with @reason as their
-- last error (NULL: the last error stays) and @modified_by (NULL: unchanged). Rows a claim
-- holds right now are waited for (no READPAST: a cancel skips nobody) and then left alone
-- (they are LEASED by then). The ids go into a table variable first, so that each row is
-- reached by a seek on the primary key; the rows are locked by the guarded read (UPDLOCK,
-- READCOMMITTEDLOCK: under RCSI too the status checked is the current one), moved
-- (include/moved_job_delete.sql) and archived, all in one batch. Returns id, queue, batch_id
-- and has_dependents of each cancelled job (one result set, in id order): the caller settles
-- their batches and dependents in the same transaction.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @cancel_id TABLE (id bigint NOT NULL PRIMARY KEY);
-- include: moved_job.sql

INSERT INTO @cancel_id (id)
SELECT DISTINCT TRY_CONVERT(bigint, e.value)
FROM OPENJSON(@ids) AS e
WHERE TRY_CONVERT(bigint, e.value) IS NOT NULL;

INSERT INTO @target (id)
SELECT j.id
FROM readpast_job AS j WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK, FORCESEEK)
INNER JOIN @cancel_id AS c ON j.id = c.id
WHERE j.status IN (0, 6, 7);

-- include: moved_job_delete.sql

-- include: moved_into.sql
-- with into: readpast_job_archive
-- with status: 5
-- with last_error: COALESCE(@reason, m.last_error)
-- with modified_by: COALESCE(@modified_by, m.modified_by)
-- with lease_id: NULL
;

SELECT
    m.id,
    m.queue,
    m.batch_id,
    m.has_dependents
FROM @moved AS m
ORDER BY m.id ASC;
