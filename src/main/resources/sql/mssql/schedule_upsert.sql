-- PUT /schedules/NAME: create or replace a schedule. @next_fire_at is the first fire time
-- after the database's now for the new cron expression and time zone. An existing schedule
-- that keeps its expression and time zone and is not paused keeps its next_fire_at, so
-- re-applying the same settings (at every deploy, say) never drops a slot that is due but
-- not fired yet. No MERGE: UPDATE under UPDLOCK, SERIALIZABLE (which also locks the key
-- range when the row is missing, so two first PUTs cannot both insert), and INSERT when no
-- row was updated. Returns the row.
SET NOCOUNT ON;
SET XACT_ABORT ON;

UPDATE readpast_schedule WITH (UPDLOCK, SERIALIZABLE)
SET
    next_fire_at = CASE
        WHEN cron = @cron AND time_zone = @time_zone AND paused = 0 THEN next_fire_at
        ELSE @next_fire_at
    END,
    cron = @cron,
    time_zone = @time_zone,
    queue = @queue,
    type = @type,
    payload = @payload,
    tags = @tags,
    priority = @priority,
    max_attempts = @max_attempts,
    overlap = @overlap,
    catch_up = @catch_up,
    paused = @paused,
    modified_by = @modified_by,
    updated_at = SYSUTCDATETIME()
WHERE name = @name;

IF @@ROWCOUNT = 0
BEGIN
    INSERT INTO readpast_schedule (
        name, cron, time_zone, queue, type, payload, tags, priority, max_attempts, overlap,
        catch_up, paused, next_fire_at, created_by, modified_by
    )
    VALUES (
        @name, @cron, @time_zone, @queue, @type, @payload, @tags, @priority, @max_attempts,
        @overlap, @catch_up, @paused, @next_fire_at, @modified_by, @modified_by
    );
END;

SELECT s.*
FROM readpast_schedule AS s
WHERE s.name = @name;
