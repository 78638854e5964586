-- Deletes a stored key by name. Returns the name when a row went.
SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @deleted TABLE (name nvarchar(200) NOT NULL);

DELETE FROM readpast_api_key WITH (ROWLOCK)
OUTPUT deleted.name INTO @deleted (name)
WHERE name = @name;

SELECT name FROM @deleted;
