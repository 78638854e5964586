-- Keys the broker generated itself (digests only).
SELECT name, roles, digest FROM readpast_api_key ORDER BY name
