-- The job holding a uniqueness key, and until when.
SET NOCOUNT ON;

SELECT
    k.unique_key,
    k.job_id,
    k.expires_at
FROM readpast_unique_key AS k
WHERE k.unique_key = @unique_key;
