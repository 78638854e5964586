-- Pause or resume a schedule. Resuming a paused schedule starts again from :next_fire_at (the
-- first fire time after the database's now): slots that passed while it was paused are not
-- caught up. Returns the row.
UPDATE readpast_schedule
SET next_fire_at = CASE WHEN paused AND NOT :paused THEN CAST(:next_fire_at AS timestamptz) ELSE next_fire_at END,
    paused = :paused,
    updated_at = now()
WHERE name = :name
RETURNING *
