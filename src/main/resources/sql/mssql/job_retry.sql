-- Back to PENDING, due after @delay_ms (a failure with attempts left, or an expired lease).
-- With @expired_only = 1 (the lease sweeper) only if the lease has expired by the database
-- clock. @delay_ms is bigint: split into seconds and milliseconds because DATEADD takes an
-- int. Guarded by id, lease id and status: no row means the lease was lost. A job whose
-- cancellation was requested is not retried (no row: the caller cancels it instead). @error
-- becomes last_error and is appended to errors (the last 20 attempts' errors, a JSON array).
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
    errors = (
        SELECT N'[' + STRING_AGG(e.entry, N',') WITHIN GROUP (ORDER BY e.n ASC) + N']'
        FROM (
            SELECT
                CAST(x.[key] AS int) AS n,
                x.value AS entry
            FROM OPENJSON(readpast_job.errors) AS x
            UNION ALL
            SELECT
                2147483647 AS n,
                CAST(N'{"attempt":' AS nvarchar(max)) + CAST(readpast_job.attempt AS nvarchar(11))
                + N',"at":"' + REPLACE(CONVERT(nvarchar(33), SYSUTCDATETIME(), 127), N' ', N'T') + N'Z"'
                + N',"workerId":'
                + COALESCE(N'"' + STRING_ESCAPE(readpast_job.worker_id, 'json') + N'"', N'null')
                + N',"error":"' + STRING_ESCAPE(@error, 'json') + N'"}' AS entry
        ) AS e
        WHERE e.n > (SELECT COUNT(*) FROM OPENJSON(readpast_job.errors)) - 20
    ),
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
