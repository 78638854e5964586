-- The receiver answered 2xx: DELIVERED. Guarded by the sender's lease (@lease_id is a UUID
-- string; one that is not a UUID matches nothing); no row means the lease expired and another
-- sender took the delivery over (it will send it again: at least once).
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @done TABLE (id bigint NOT NULL);

UPDATE readpast_webhook WITH (ROWLOCK)
SET
    status = 2,
    lease_id = NULL,
    last_status = @status_code,
    last_error = NULL,
    delivered_at = SYSUTCDATETIME(),
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @done (id)
WHERE id = @id
    AND lease_id = TRY_CONVERT(uniqueidentifier, @lease_id)
    AND status = 1;

SELECT d.id
FROM @done AS d;
