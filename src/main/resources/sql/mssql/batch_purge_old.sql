-- Retention: delete up to @limit batches that finished more than @older_than_ms ago
-- (database clock), with their jobs still in the dead letters or the archive (no finished job
-- is left naming a batch that is gone). A finished batch has counted all its jobs and fired
-- (or will never fire): it only waits to be deleted. One with a job back in the hot table
-- (requeued since) is not finished any more, and the hot-table check keeps it in any case.
-- The batch rows are taken with UPDLOCK and READPAST (with ROWLOCK, READCOMMITTEDLOCK, READ
-- COMMITTED, as in archive_purge_old): a batch another sweeper holds, or a requeue of one of
-- its jobs (which locks the batch first), is skipped, never waited for, so every instance can
-- run it. The hot-table check reads with NOLOCK: it never waits, and it errs on the side of
-- keeping the batch (a job row inserted or deleted but not committed yet still counts; READPAST
-- would skip a held row and take the batch for empty). Then the batch's dead letters,
-- its archived jobs and the batch rows are deleted, in the order of docs/sqlserver.md ("Lock
-- order"), each reached by seek from the ids taken (the filtered batch_id indexes of V18, the
-- primary key), each delete's rows going OUTPUT ... INTO a table variable; the cutoff is
-- computed as in archive_purge_old. One row per deleted batch: its id, and how many jobs went
-- with the pass.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @gone TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @jobs TABLE (id bigint NOT NULL);
DECLARE @batches TABLE (id bigint NOT NULL PRIMARY KEY);

DECLARE @cutoff datetime2(6) = CASE
    WHEN @older_than_ms <= 0 THEN SYSUTCDATETIME()
    WHEN
        @older_than_ms
        >= DATEDIFF_BIG(MILLISECOND, CAST('0001-01-01' AS datetime2(6)), SYSUTCDATETIME())
        THEN CAST('0001-01-01' AS datetime2(6))
    ELSE DATEADD(
        DAY,
        -CAST(@older_than_ms / 86400000 AS int),
        DATEADD(MILLISECOND, -CAST(@older_than_ms % 86400000 AS int), SYSUTCDATETIME())
    )
END;

INSERT INTO @gone (id)
SELECT TOP (@limit) b.id
FROM readpast_batch AS b WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
WHERE b.finished_at IS NOT NULL
    AND b.finished_at < @cutoff
    AND NOT EXISTS (
        SELECT 1
        FROM readpast_job AS j WITH (NOLOCK)
        WHERE j.batch_id IS NOT NULL
            AND j.batch_id = b.id
    )
ORDER BY b.finished_at ASC
OPTION (RECOMPILE);

DELETE d
OUTPUT deleted.id INTO @jobs (id)
FROM readpast_job_dead AS d WITH (ROWLOCK)
INNER JOIN @gone AS g ON d.batch_id = g.id
WHERE d.batch_id IS NOT NULL;

DELETE a
OUTPUT deleted.id INTO @jobs (id)
FROM readpast_job_archive AS a WITH (ROWLOCK)
INNER JOIN @gone AS g ON a.batch_id = g.id
WHERE a.batch_id IS NOT NULL;

DELETE b
OUTPUT deleted.id INTO @batches (id)
FROM readpast_batch AS b WITH (ROWLOCK)
INNER JOIN @gone AS g ON b.id = g.id;

SELECT
    x.id,
    (SELECT COUNT(*) FROM @jobs) AS jobs
FROM @batches AS x;
