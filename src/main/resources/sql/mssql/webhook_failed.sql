-- An attempt failed (no 2xx, or no answer): back to PENDING, due after @delay_ms (bigint,
-- split into seconds and milliseconds because DATEADD takes an int), or DEAD when @dead
-- (attempts used up). Guarded by the sender's lease, like webhook_delivered. Returns when the
-- next attempt is due (database clock), for the sender to look again then.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @done TABLE (id bigint NOT NULL, due_at datetime2(6) NOT NULL);

UPDATE readpast_webhook WITH (ROWLOCK)
SET
    status = CASE WHEN @dead = 1 THEN 3 ELSE 0 END,
    lease_id = NULL,
    due_at = DATEADD(
        SECOND,
        CAST(@delay_ms / 1000 AS int),
        DATEADD(MILLISECOND, CAST(@delay_ms % 1000 AS int), SYSUTCDATETIME())
    ),
    last_status = @status_code,
    last_error = @error,
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id, inserted.due_at INTO @done (id, due_at)
WHERE id = @id
    AND lease_id = TRY_CONVERT(uniqueidentifier, @lease_id)
    AND status = 1;

SELECT
    d.id,
    d.due_at
FROM @done AS d;
