-- W3C trace context of the enqueue (traceparent, tracestate), carried with the job from the
-- producer to its workers: claims return it, and the broker's own spans link to it. Checked
-- by the broker before it is stored (a malformed one is dropped, never refused); the lengths
-- are W3C's (traceparent version 00 is 55 characters; tracestate at most 32 members, which
-- the broker caps at 512 characters).
ALTER TABLE readpast_job ADD COLUMN traceparent varchar(55) NULL;
ALTER TABLE readpast_job ADD COLUMN tracestate varchar(512) NULL;
ALTER TABLE readpast_job_archive ADD COLUMN traceparent varchar(55) NULL;
ALTER TABLE readpast_job_archive ADD COLUMN tracestate varchar(512) NULL;
ALTER TABLE readpast_job_dead ADD COLUMN traceparent varchar(55) NULL;
ALTER TABLE readpast_job_dead ADD COLUMN tracestate varchar(512) NULL;
