-- Stores a generated key's digest unless a key of that name exists (several instances may
-- start at once: only the one whose row lands prints its key). Returns the name when stored.
INSERT INTO readpast_api_key (name, roles, digest)
VALUES (:name, :roles, :digest)
ON CONFLICT (name) DO NOTHING
RETURNING name
