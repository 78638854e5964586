-- The job a fired slot enqueued.
UPDATE readpast_schedule_fire
SET job_id = :job_id
WHERE schedule_name = :schedule_name AND slot_at = CAST(:slot_at AS timestamptz)
RETURNING slot_at
