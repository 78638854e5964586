-- The lease a finished job ended under, so that a repeated call with that lease (a worker
-- retrying a completion whose answer it never got) is recognised and answered 200.
ALTER TABLE readpast_job_archive ADD COLUMN lease_id uuid NULL;
ALTER TABLE readpast_job_dead ADD COLUMN lease_id uuid NULL;
