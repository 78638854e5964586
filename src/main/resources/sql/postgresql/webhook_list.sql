-- Deliveries newest first, optionally of one status (:status code or NULL), keyset pagination
-- on the internal sequence: :after is the previous page's last one.
SELECT w.*
FROM readpast_webhook AS w
WHERE (CAST(:status AS integer) IS NULL OR w.status = CAST(:status AS integer))
  AND (CAST(:after AS bigint) IS NULL OR w.id < CAST(:after AS bigint))
ORDER BY w.id DESC
LIMIT :limit
