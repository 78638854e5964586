-- A cancel-requested job comes back from its worker (fail, release) or its lease expires:
-- it moves from the hot table to the archive as CANCELLED (5), with @error as its last error
-- when given (else the last error stays), also appended to errors (the last @keep_errors
-- attempts' errors, a JSON array; include/errors_appended.sql). With @expired_only = 1 (the
-- lease sweeper) only if the lease has expired by the database clock. Guarded like every
-- lease-bound change: by id, lease id and status, and the cancel flag; no row means the lease
-- was lost. (@lease_id is a UUID string; one that is not a UUID matches nothing.) The row is
-- locked by the guarded read, moved (include/moved_job_delete.sql), inserted into the archive,
-- and the archived row is read back as the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

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
    AND j.cancel_requested = 1
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
-- with into: readpast_job_archive
-- with status: 5
-- with last_error: COALESCE(@error, m.last_error)
-- with modified_by: COALESCE(@modified_by, m.modified_by)
-- with errors: CASE WHEN @error IS NULL THEN @errors ELSE @appended_errors END
;

SELECT a.*
FROM readpast_job_archive AS a
INNER JOIN @moved AS m ON a.id = m.id;
