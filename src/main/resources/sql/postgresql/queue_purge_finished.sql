-- DELETE /queues/{name}?purge=true, before the deletion: up to :limit of the queue's dead letters
-- and up to :limit of its finished (archived) jobs deleted for good, as DELETE /jobs/{id} deletes
-- one, in a transaction of their own; returns how many. Rows a retention sweeper is deleting are
-- skipped; the caller repeats until a pass deletes nothing.
WITH d AS (
    DELETE FROM readpast_job_dead
    WHERE id IN (
        SELECT x.id FROM readpast_job_dead AS x WHERE x.queue = :name ORDER BY x.id LIMIT :limit
        FOR UPDATE SKIP LOCKED)
    RETURNING 1
),
a AS (
    DELETE FROM readpast_job_archive
    WHERE id IN (
        SELECT x.id FROM readpast_job_archive AS x WHERE x.queue = :name ORDER BY x.id LIMIT :limit
        FOR UPDATE SKIP LOCKED)
    RETURNING 1
)
SELECT (SELECT count(*) FROM d) + (SELECT count(*) FROM a) AS deleted
