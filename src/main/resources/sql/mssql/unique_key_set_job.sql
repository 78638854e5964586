-- The job a uniqueness key stands for (set in the transaction that took the key).
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @set TABLE (unique_key nvarchar(210) NOT NULL);

UPDATE readpast_unique_key WITH (ROWLOCK)
SET job_id = @job_id
OUTPUT inserted.unique_key INTO @set (unique_key)
WHERE unique_key = @unique_key;

SELECT s.unique_key
FROM @set AS s;
