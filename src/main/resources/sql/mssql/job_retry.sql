-- Back to PENDING, due after @delay_ms (a failure with attempts left, or an expired lease):
-- stored as 0 when due at once, else as 6 (scheduled: out of the claim index until a claim
-- promotes it, see include/claim.sql). With @expired_only = 1 (the lease sweeper) only if the
-- lease has expired by the database clock. @delay_ms is bigint: split into seconds and
-- milliseconds because DATEADD takes an int. Guarded by id, lease id and status: no row means
-- the lease was lost. A job whose cancellation was requested is not retried (no row: the
-- caller cancels it instead). @error becomes last_error and is appended to errors (the last
-- @keep_errors attempts' errors, a JSON array; include/errors_appended.sql). The row is read
-- and locked by the guarded read first (UPDLOCK), so that the update that follows changes the
-- row that was read.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @errors nvarchar(max);
DECLARE @appended_errors nvarchar(max);
DECLARE @error_attempt int;
DECLARE @error_worker nvarchar(200);
DECLARE @found bigint;

SELECT
    @found = j.id,
    @errors = j.errors,
    @error_attempt = j.attempt,
    @error_worker = j.worker_id
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

-- include: errors_appended.sql

UPDATE readpast_job
SET
    status = CASE WHEN @delay_ms > 0 THEN 6 ELSE 0 END,
    due_at = DATEADD(
        SECOND,
        CAST(@delay_ms / 1000 AS int),
        DATEADD(MILLISECOND, CAST(@delay_ms % 1000 AS int), SYSUTCDATETIME())
    ),
    worker_id = NULL,
    lease_id = NULL,
    lease_seconds = NULL,
    lease_expires_at = NULL,
    heartbeat_at = NULL,
    last_error = @error,
    errors = @appended_errors,
    modified_by = COALESCE(@modified_by, modified_by),
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @updated (id)
WHERE id = @found
    AND status IN (1, 2);

SELECT j.*
FROM readpast_job AS j
INNER JOIN @updated AS u ON j.id = u.id;
