-- Retention: delete up to :limit archived (SUCCEEDED, CANCELLED) jobs finished more than
-- :older_than_ms ago. Rows another sweeper is deleting are skipped, so every instance can run it.
DELETE FROM readpast_job_archive
WHERE id IN (
    SELECT a.id FROM readpast_job_archive AS a
    WHERE a.finished_at < now() - CAST(:older_than_ms AS bigint) * interval '1 millisecond'
    ORDER BY a.finished_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
RETURNING id
