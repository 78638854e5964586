-- One setting of this broker that the SQL enqueue's rules read (readpast_enqueue_item):
-- written by every broker at start-up; the last one started wins.
INSERT INTO readpast_setting (name, value, updated_at)
VALUES (:name, :value, now())
ON CONFLICT (name) DO UPDATE
SET value = EXCLUDED.value,
    updated_at = EXCLUDED.updated_at
