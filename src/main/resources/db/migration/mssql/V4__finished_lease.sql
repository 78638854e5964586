-- The lease a finished job ended under, so that a repeated call with that lease (a worker
-- retrying a completion whose answer it never got) is recognised and answered 200.
ALTER TABLE readpast_job_archive ADD lease_id uniqueidentifier NULL;
ALTER TABLE readpast_job_dead ADD lease_id uniqueidentifier NULL;
