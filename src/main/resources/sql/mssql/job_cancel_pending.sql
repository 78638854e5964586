-- Cancel a job nobody holds: a PENDING job (due, or scheduled for later) or a WAITING one moves
-- from the hot table to the archive as CANCELLED (5) at once, with @modified_by. No row means
-- the job is not pending or waiting (any more). The row is locked by the guarded read, moved
-- (include/moved_job_delete.sql), inserted into the archive, and the archived row is read back
-- as the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

-- include: moved_job.sql

-- @skip_locked = 1 (a bulk cancel) reads past a row another transaction holds at this moment
-- (a claim taking it): no row, nothing waited for. Otherwise the read waits for it and then
-- finds the job claimed (a single cancel then flags it).
IF @skip_locked = 1
BEGIN
    INSERT INTO @target (id)
    SELECT j.id
    FROM readpast_job AS j WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE j.id = @id
        AND j.status IN (0, 6, 7);
END
ELSE
BEGIN
    INSERT INTO @target (id)
    SELECT j.id
    FROM readpast_job AS j WITH (UPDLOCK, ROWLOCK)
    WHERE j.id = @id
        AND j.status IN (0, 6, 7);
END

-- include: moved_job_delete.sql

-- include: moved_into.sql
-- with into: readpast_job_archive
-- with status: 5
-- with modified_by: @modified_by
-- with lease_id: NULL
;

SELECT a.*
FROM readpast_job_archive AS a
INNER JOIN @moved AS m ON a.id = m.id;
