-- Records a slot as handled; the primary key (schedule, slot) refuses a second record, so
-- a slot fires at most once whatever the number of instances. Returns the slot when this
-- call recorded it, nothing when it was recorded before.
INSERT INTO readpast_schedule_fire (schedule_name, slot_at, outcome)
VALUES (:schedule_name, CAST(:slot_at AS timestamptz), :outcome)
ON CONFLICT (schedule_name, slot_at) DO NOTHING
RETURNING slot_at
