-- One setting of this broker that the SQL enqueue's rules read (readpast_enqueue_item):
-- written by every broker at start-up; the last one started wins. No MERGE: UPDATE under
-- UPDLOCK, SERIALIZABLE (which locks the key range when the row is missing), then INSERT.
SET NOCOUNT ON;
SET XACT_ABORT ON;

UPDATE readpast_setting WITH (UPDLOCK, SERIALIZABLE)
SET
    value = @value,
    updated_at = SYSUTCDATETIME()
WHERE name = @name;

IF @@ROWCOUNT = 0
BEGIN
    INSERT INTO readpast_setting (name, value, updated_at)
    VALUES (@name, @value, SYSUTCDATETIME());
END;
