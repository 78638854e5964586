-- Retention: deletes up to :limit records of fired slots older than :older_than_ms. Slots
-- are only ever fired forward (next_fire_at only grows), so old records are not needed to
-- keep a slot from firing twice. Rows another sweeper is deleting are skipped.
DELETE FROM readpast_schedule_fire
WHERE (schedule_name, slot_at) IN (
    SELECT f.schedule_name, f.slot_at FROM readpast_schedule_fire AS f
    WHERE f.fired_at < now() - CAST(:older_than_ms AS bigint) * interval '1 millisecond'
    ORDER BY f.fired_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
RETURNING slot_at
