-- Edits a job nobody holds (PENDING, due or scheduled or backing off, or WAITING): its
-- priority, its due time (@run_at; @run_now = 1 makes it due at once) and its payload, each only
-- when given (NULL keeps it). One statement: the row is taken with READPAST, so a claim holding
-- it at this moment wins and the edit changes nothing (no row: the caller reads the job and
-- answers); it never waits. A PENDING job whose due time moves ahead goes out of the claim
-- index (6); one made due goes into it (0); a WAITING job stays WAITING with its new due time,
-- which applies when its parents have settled.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @due datetime2(6) = CASE WHEN @run_now = 1 THEN SYSUTCDATETIME() ELSE @run_at END;

UPDATE j
SET
    priority = COALESCE(@priority, j.priority),
    due_at = COALESCE(@due, j.due_at),
    status = CASE
        WHEN j.status = 7 THEN 7
        WHEN COALESCE(@due, j.due_at) > SYSUTCDATETIME() THEN 6
        ELSE 0
    END,
    payload = COALESCE(@payload, j.payload),
    modified_by = @modified_by,
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @updated (id)
FROM readpast_job AS j WITH (ROWLOCK, UPDLOCK, READPAST)
WHERE j.id = @id
    AND j.status IN (0, 6, 7);

SELECT j.*
FROM readpast_job AS j
INNER JOIN @updated AS u ON j.id = u.id;
