-- Back to PENDING, due after @delay_ms (a failure with attempts left, or an expired lease).
-- With @expired_only = 1 (the lease sweeper) only if the lease has expired by the database
-- clock. @delay_ms is bigint: split into seconds and milliseconds because DATEADD takes an
-- int. Guarded by id, lease id and status: no row means the lease was lost. A job whose
-- cancellation was requested is not retried (no row: the caller cancels it instead).
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);

UPDATE readpast_job
SET
    status = 0,
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
    modified_by = COALESCE(@modified_by, modified_by),
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @updated (id)
WHERE id = @id
    AND lease_id = TRY_CONVERT(uniqueidentifier, @lease_id)
    AND status IN (1, 2)
    AND cancel_requested = 0
    AND (@expired_only = 0 OR lease_expires_at <= SYSUTCDATETIME());

SELECT j.*
FROM readpast_job AS j
INNER JOIN @updated AS u ON j.id = u.id;
