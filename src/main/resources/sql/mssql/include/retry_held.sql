-- The retry of one held job (job_retry, and job_retry_many per item): the row of @id held under
-- @lease_id (a UUID string), LEASED or PROCESSING, with no cancellation requested, and with a
-- running lease (@expired_only = 0, its holder) or an expired one (1, the sweeper), is read and
-- locked (UPDLOCK) into @found, @errors, @error_attempt and @error_worker; @error is appended to
-- its errors (errors_appended.sql) and it goes back to PENDING, due after @delay_ms (0 when due
-- at once, else 6), its id into @updated. The including batch declares those variables (the
-- parameters of job_retry, locals of job_retry_many) and reads @updated.
SET @found = NULL;
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
