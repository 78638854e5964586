-- Browsing by queue, newest first, across the hot, archive and dead-letter tables.
CREATE INDEX readpast_job_queue_id ON readpast_job (queue, id);
CREATE INDEX readpast_job_archive_queue_id ON readpast_job_archive (queue, id);
