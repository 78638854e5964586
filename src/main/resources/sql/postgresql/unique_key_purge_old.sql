-- Housekeeping: deletes up to :limit uniqueness keys whose window has run out (they no longer
-- hold anything). Rows another sweeper is deleting are skipped.
DELETE FROM readpast_unique_key
WHERE unique_key IN (
    SELECT k.unique_key FROM readpast_unique_key AS k
    WHERE k.expires_at <= now()
    ORDER BY k.expires_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
RETURNING unique_key
