-- Pause or resume a schedule. Resuming a paused schedule starts again from @next_fire_at (the
-- first fire time after the database's now): slots that passed while it was paused are not
-- caught up. Returns the row.
SET NOCOUNT ON;
SET XACT_ABORT ON;

UPDATE readpast_schedule WITH (ROWLOCK)
SET
    next_fire_at = CASE WHEN paused = 1 AND @paused = 0 THEN @next_fire_at ELSE next_fire_at END,
    paused = @paused,
    updated_at = SYSUTCDATETIME()
WHERE name = @name;

SELECT s.*
FROM readpast_schedule AS s
WHERE s.name = @name;
