-- The holder gives the job back unworked (shutting down): PENDING again, the attempt the
-- claim counted is given back, and the job keeps its place in line (due_at unchanged); with
-- @delay_ms > 0 it is due that long from now instead (stored as 6, scheduled, as job_retry
-- stores a delayed retry).
-- Guarded by id, lease id and status: no row means the lease was lost. A job whose
-- cancellation was requested is not released (no row: the caller cancels it instead).
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);

UPDATE readpast_job
SET
    status = CASE WHEN @delay_ms > 0 THEN 6 ELSE 0 END,
    due_at = CASE
        -- @delay_ms is bigint: seconds and milliseconds apart, since DATEADD takes an int
        WHEN @delay_ms > 0 THEN DATEADD(
            SECOND,
            CAST(@delay_ms / 1000 AS int),
            DATEADD(MILLISECOND, CAST(@delay_ms % 1000 AS int), SYSUTCDATETIME())
        )
        ELSE due_at
    END,
    attempt = CASE WHEN attempt > 0 THEN attempt - 1 ELSE 0 END,
    worker_id = NULL,
    lease_id = NULL,
    lease_seconds = NULL,
    lease_expires_at = NULL,
    heartbeat_at = NULL,
    modified_by = COALESCE(@modified_by, modified_by),
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @updated (id)
WHERE id = @id
    AND lease_id = TRY_CONVERT(uniqueidentifier, @lease_id)
    AND status IN (1, 2)
    -- the lease still runs (database clock): an expired one is lost, swept or not
    AND lease_expires_at > SYSUTCDATETIME()
    AND cancel_requested = 0;

SELECT j.*
FROM readpast_job AS j
INNER JOIN @updated AS u ON j.id = u.id;
