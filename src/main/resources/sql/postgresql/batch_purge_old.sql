-- Retention: delete up to :limit batches that finished more than :older_than_ms ago, with
-- their jobs still in the dead letters or the archive (no finished job is left naming a batch
-- that is gone). A finished batch has counted all its jobs and fired (or will never fire): it
-- only waits to be deleted. One with a job back in the hot table (requeued since) is not
-- finished any more, and the hot-table check keeps it in any case. Batches another sweeper (or
-- a requeue of one of their jobs, which locks the batch first) holds are skipped, so every
-- instance can run it. Order: the batch rows, then the dead letters, then the archive (the
-- order of docs/sqlserver.md, "Lock order").
WITH gone AS (
    SELECT b.id FROM readpast_batch AS b
    WHERE b.finished_at IS NOT NULL
      AND b.finished_at < now() - CAST(:older_than_ms AS bigint) * interval '1 millisecond'
      AND NOT EXISTS (SELECT 1 FROM readpast_job AS j WHERE j.batch_id = b.id)
    ORDER BY b.finished_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
),
dead AS (
    DELETE FROM readpast_job_dead AS d USING gone AS g WHERE d.batch_id = g.id RETURNING d.id
),
archived AS (
    DELETE FROM readpast_job_archive AS a USING gone AS g WHERE a.batch_id = g.id RETURNING a.id
),
batches AS (
    DELETE FROM readpast_batch AS b USING gone AS g WHERE b.id = g.id RETURNING b.id
)
SELECT b.id,
       (SELECT count(*) FROM dead) + (SELECT count(*) FROM archived) AS jobs
FROM batches AS b
