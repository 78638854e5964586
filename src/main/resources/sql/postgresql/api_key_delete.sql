-- Deletes a stored key by name. Returns the name when a row went.
DELETE FROM readpast_api_key
WHERE name = :name
RETURNING name
