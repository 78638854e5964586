-- Retention: deletes up to :limit finished deliveries, DELIVERED ones older than
-- :delivered_older_than_ms and DEAD ones older than :dead_older_than_ms (by their last
-- change). Rows another sweeper is deleting are skipped.
DELETE FROM readpast_webhook
WHERE id IN (
    SELECT w.id FROM readpast_webhook AS w
    WHERE (w.status = 2 AND w.updated_at < now() - CAST(:delivered_older_than_ms AS bigint) * interval '1 millisecond')
       OR (w.status = 3 AND w.updated_at < now() - CAST(:dead_older_than_ms AS bigint) * interval '1 millisecond')
    ORDER BY w.updated_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
RETURNING id
