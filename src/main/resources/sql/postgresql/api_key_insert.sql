-- Stores a key's digest unless a key of that name exists (several instances may start at once:
-- only the one whose row lands prints the generated key). Returns the name when stored.
INSERT INTO readpast_api_key (name, roles, digest, queues, origin, created_by)
VALUES (:name, :roles, :digest, :queues, :origin, :created_by)
ON CONFLICT (name) DO NOTHING
RETURNING name
