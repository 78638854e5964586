-- Stores a generated key digest unless a key of that name exists (several instances may
-- start at once: only the one whose row lands prints its key). Returns the name when stored.
SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @stored TABLE (name nvarchar(200) NOT NULL);

INSERT INTO readpast_api_key (name, roles, digest)
OUTPUT inserted.name INTO @stored (name)
SELECT
    @name,
    @roles,
    @digest
WHERE NOT EXISTS (
    SELECT 1 FROM readpast_api_key WITH (UPDLOCK, HOLDLOCK)
    WHERE name = @name
);

SELECT name FROM @stored;
