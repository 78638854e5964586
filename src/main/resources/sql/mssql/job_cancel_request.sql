-- Cancel a job a worker holds: flag it; the worker sees the flag on its next heartbeat, and
-- the job becomes CANCELLED when the worker fails or releases it, or its lease expires.
-- Leased or processing rows only: no row means the job is not held (any more).
SET NOCOUNT ON;
SET XACT_ABORT ON;

-- @skip_locked = 1 (a bulk cancel) reads past a row another transaction holds at this moment
-- (the worker's heartbeat or acknowledgement): no row, nothing waited for.
DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);

IF @skip_locked = 1
BEGIN
    UPDATE j
    SET
        cancel_requested = 1,
        modified_by = @modified_by,
        updated_at = SYSUTCDATETIME()
    OUTPUT inserted.id INTO @updated (id)
    FROM readpast_job AS j WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE j.id = @id
        AND j.status IN (1, 2);
END
ELSE
BEGIN
    UPDATE readpast_job
    SET
        cancel_requested = 1,
        modified_by = @modified_by,
        updated_at = SYSUTCDATETIME()
    OUTPUT inserted.id INTO @updated (id)
    WHERE id = @id
        AND status IN (1, 2);
END

SELECT j.*
FROM readpast_job AS j
INNER JOIN @updated AS u ON j.id = u.id;
