-- An operator sends a DEAD delivery again: PENDING, due now, attempts from zero, same delivery
-- id (receivers that got it before drop it). No row: there is no DEAD delivery with that id.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @done TABLE (id bigint NOT NULL);

UPDATE readpast_webhook WITH (ROWLOCK)
SET
    status = 0,
    attempt = 0,
    due_at = SYSUTCDATETIME(),
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @done (id)
WHERE delivery_id = TRY_CONVERT(uniqueidentifier, @delivery_id)
    AND status = 3;

SELECT w.*
FROM readpast_webhook AS w
INNER JOIN @done AS d ON w.id = d.id;
