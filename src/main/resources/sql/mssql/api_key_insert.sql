-- Stores a key's digest unless a key of that name exists (several instances may start at once:
-- only the one whose row lands prints the generated key). Returns the name when stored.
SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @stored TABLE (name nvarchar(200) NOT NULL);

INSERT INTO readpast_api_key (name, roles, digest, queues, origin, created_by)
OUTPUT inserted.name INTO @stored (name)
SELECT
    @name,
    @roles,
    @digest,
    @queues,
    @origin,
    @created_by
WHERE NOT EXISTS (
    SELECT 1 FROM readpast_api_key WITH (UPDLOCK, HOLDLOCK)
    WHERE name = @name
);

SELECT name FROM @stored;
