-- Housekeeping: deletes up to @limit uniqueness keys whose window has run out (they no longer
-- hold anything). Rows another sweeper is deleting are skipped (READPAST, ROWLOCK, READ
-- COMMITTED). The deleted keys go OUTPUT ... INTO a table variable and are read back.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @purged TABLE (unique_key nvarchar(210) NOT NULL);

DELETE TOP (@limit) FROM readpast_unique_key WITH (READPAST, ROWLOCK)
OUTPUT deleted.unique_key INTO @purged (unique_key)
WHERE expires_at <= SYSUTCDATETIME();

SELECT p.unique_key
FROM @purged AS p;
