-- Keys stored in the database (digests only): the generated first-start key and keys made
-- through the admin API.
SET NOCOUNT ON;
SELECT
    name,
    roles,
    digest,
    queues,
    origin,
    created_by,
    created_at
FROM readpast_api_key
ORDER BY name;
