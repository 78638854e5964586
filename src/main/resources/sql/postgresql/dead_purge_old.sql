-- Retention: delete up to :limit dead letters that died more than :older_than_ms ago.
-- Rows another sweeper is deleting are skipped, so every instance can run it.
DELETE FROM readpast_job_dead
WHERE id IN (
    SELECT d.id FROM readpast_job_dead AS d
    WHERE d.finished_at < now() - CAST(:older_than_ms AS bigint) * interval '1 millisecond'
    ORDER BY d.finished_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
RETURNING id
