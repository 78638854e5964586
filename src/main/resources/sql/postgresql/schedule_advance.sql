-- After firing: the next slot to handle, and the last slot handled and job enqueued (NULL
-- keeps the previous value). Runs in the transaction that holds the schedule's row lock.
UPDATE readpast_schedule
SET next_fire_at = CAST(:next_fire_at AS timestamptz),
    last_fire_at = COALESCE(CAST(:last_fire_at AS timestamptz), last_fire_at),
    last_job_id = COALESCE(CAST(:last_job_id AS bigint), last_job_id)
WHERE name = :name
RETURNING name
