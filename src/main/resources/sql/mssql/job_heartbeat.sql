-- Extends the lease of the holder. The first heartbeat moves LEASED to PROCESSING.
-- Guarded by id, lease id and status: no row means the lease was lost. (@lease_id is a
-- UUID string; one that is not a UUID matches nothing.) The right-hand sides read the
-- values before the update, as in PostgreSQL.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);

UPDATE readpast_job
SET
    status = 2,
    started_at = COALESCE(started_at, SYSUTCDATETIME()),
    heartbeat_at = SYSUTCDATETIME(),
    lease_seconds = COALESCE(@lease_seconds, lease_seconds),
    -- never past the job's deadline (timeoutSeconds, set by the claim)
    lease_expires_at = CASE
        WHEN deadline_at < DATEADD(SECOND, COALESCE(@lease_seconds, lease_seconds), SYSUTCDATETIME())
            THEN deadline_at
        ELSE DATEADD(SECOND, COALESCE(@lease_seconds, lease_seconds), SYSUTCDATETIME())
    END,
    progress = COALESCE(@progress, progress),
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @updated (id)
WHERE id = @id
    AND lease_id = TRY_CONVERT(uniqueidentifier, @lease_id)
    AND status IN (1, 2)
    -- the lease still runs (database clock): an expired one is lost, swept or not
    AND lease_expires_at > SYSUTCDATETIME();

SELECT j.*
FROM readpast_job AS j
INNER JOIN @updated AS u ON j.id = u.id;
