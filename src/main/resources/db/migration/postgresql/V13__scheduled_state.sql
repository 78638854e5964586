-- SCHEDULED (6): a pending job whose due time is still ahead (a delayed enqueue, a retry
-- backing off) is stored as 6, outside the claim index (which holds status 0 only), so that
-- due rows are never read behind a backlog of future ones. Claims promote rows of 6 whose time
-- has come to 0 (readpast_job_scheduled, in due order) before they claim. Both count as
-- PENDING to the API. The expiry index covers both.
-- The group probe seeks: status is in the key, so "a member leased or processing" and "a
-- pending member before this one" are index conditions, not a read of the whole group.
ALTER TABLE readpast_job DROP CONSTRAINT readpast_job_status_check;
ALTER TABLE readpast_job DROP CONSTRAINT readpast_job_check;
ALTER TABLE readpast_job ADD CONSTRAINT readpast_job_status_check CHECK (status IN (0, 1, 2, 6));
ALTER TABLE readpast_job ADD CONSTRAINT readpast_job_check CHECK ((status IN (0, 6)) = (lease_id IS NULL));

UPDATE readpast_job SET status = 6 WHERE status = 0 AND due_at > now();

CREATE INDEX readpast_job_scheduled ON readpast_job (queue, due_at, id) WHERE status = 6;

DROP INDEX readpast_job_expiry;
CREATE INDEX readpast_job_expiry ON readpast_job (expires_at) WHERE status IN (0, 6) AND expires_at IS NOT NULL;

DROP INDEX readpast_job_group;
CREATE INDEX readpast_job_group ON readpast_job (queue, group_key, status, group_seq) WHERE group_key IS NOT NULL;
