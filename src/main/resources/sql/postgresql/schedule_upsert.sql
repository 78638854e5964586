-- PUT /schedules/{name}: create or replace a schedule. :next_fire_at is the first fire time
-- after the database's now for the new cron expression and time zone. An existing schedule
-- that keeps its expression and time zone and is not paused keeps its next_fire_at, so
-- re-applying the same settings (at every deploy, say) never drops a slot that is due but
-- not fired yet. Returns the row.
INSERT INTO readpast_schedule (
    name, cron, time_zone, queue, type, payload, tags, priority, max_attempts, overlap,
    catch_up, paused, next_fire_at, created_by, modified_by
)
VALUES (
    :name, :cron, :time_zone, :queue, :type, :payload, :tags, :priority,
    CAST(:max_attempts AS integer), :overlap, :catch_up, :paused, CAST(:next_fire_at AS timestamptz),
    :modified_by, :modified_by
)
ON CONFLICT (name) DO UPDATE
SET cron = EXCLUDED.cron,
    time_zone = EXCLUDED.time_zone,
    queue = EXCLUDED.queue,
    type = EXCLUDED.type,
    payload = EXCLUDED.payload,
    tags = EXCLUDED.tags,
    priority = EXCLUDED.priority,
    max_attempts = EXCLUDED.max_attempts,
    overlap = EXCLUDED.overlap,
    catch_up = EXCLUDED.catch_up,
    paused = EXCLUDED.paused,
    next_fire_at = CASE
        WHEN readpast_schedule.cron = EXCLUDED.cron
             AND readpast_schedule.time_zone = EXCLUDED.time_zone
             AND NOT readpast_schedule.paused
        THEN readpast_schedule.next_fire_at
        ELSE EXCLUDED.next_fire_at
    END,
    modified_by = EXCLUDED.modified_by,
    updated_at = now()
RETURNING *
