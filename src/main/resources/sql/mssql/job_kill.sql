-- Retries used up or a fatal error: the job moves from the hot table to the dead-letter
-- table as DEAD (4) with @error as its last error, appended to errors (the last @keep_errors
-- attempts' errors, a JSON array; include/errors_appended.sql). With @expired_only = 1 (the
-- lease sweeper) only if the lease has expired by the database clock. Guarded by id, lease id
-- and status: no row means the lease was lost. (@lease_id is a UUID string; one that is not a
-- UUID matches nothing.) The row is locked by the guarded read, moved
-- (include/moved_job_delete.sql), inserted into the dead-letter table, and the dead row is
-- read back as the one result set. Its webhook, if the job or its queue names one, goes into
-- the outbox in the same batch.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @webhook_event nvarchar(20) = N'job.dead';
DECLARE @errors nvarchar(max);
DECLARE @appended_errors nvarchar(max);
DECLARE @error_attempt int;
DECLARE @error_worker nvarchar(200);
-- include: moved_job.sql

INSERT INTO @target (id)
SELECT j.id
FROM readpast_job AS j WITH (UPDLOCK, ROWLOCK)
WHERE j.id = @id
    AND j.lease_id = TRY_CONVERT(uniqueidentifier, @lease_id)
    AND j.status IN (1, 2)
    AND j.cancel_requested = 0
    -- the sweeper (@expired_only = 1) settles expired leases only; the holder, running ones only
    AND (
        (@expired_only = 1 AND j.lease_expires_at <= SYSUTCDATETIME())
        OR (@expired_only = 0 AND j.lease_expires_at > SYSUTCDATETIME())
    );

-- include: moved_job_delete.sql

SELECT
    @errors = m.errors,
    @error_attempt = m.attempt,
    @error_worker = m.worker_id
FROM @moved AS m;

-- include: errors_appended.sql

-- include: moved_into.sql
-- with into: readpast_job_dead
-- with status: 4
-- with last_error: @error
-- with modified_by: COALESCE(@modified_by, m.modified_by)
-- with errors: @appended_errors
;

-- include: moved_job_webhook.sql

SELECT d.*
FROM readpast_job_dead AS d
INNER JOIN @moved AS m ON d.id = m.id;
