-- POST /queues/NAME/pause and /resume: set the paused flag, keeping the other settings;
-- creates the queue row (with no other settings: defaults apply) when missing. No MERGE:
-- UPDATE under UPDLOCK, SERIALIZABLE (which also locks the key range when the row is
-- missing, so two first calls cannot both insert), and INSERT when no row was updated.
-- Returns the name.
SET NOCOUNT ON;
SET XACT_ABORT ON;

UPDATE readpast_queue WITH (UPDLOCK, SERIALIZABLE)
SET
    paused = @paused,
    -- settings make a deleted queue a queue again
    deleted_at = NULL,
    deleted_job_id = NULL,
    updated_at = SYSUTCDATETIME()
WHERE name = @name;

IF @@ROWCOUNT = 0
BEGIN
    INSERT INTO readpast_queue (name, paused, updated_at)
    VALUES (@name, @paused, SYSUTCDATETIME());
END;

SELECT q.name
FROM readpast_queue AS q
WHERE q.name = @name;
