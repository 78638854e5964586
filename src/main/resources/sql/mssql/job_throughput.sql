-- Finished jobs per minute over the last @minutes minutes, per queue and outcome (3 SUCCEEDED,
-- 5 CANCELLED from the archive, 4 DEAD from the dead letters), on the database clock. The
-- window ends at the start of the next minute, so its last bucket is the current, partial
-- minute; bucket k counts the jobs finished in [window_start + k min, window_start + k + 1 min)
-- (DATEDIFF counts minute boundaries, and the window starts on one). @queue NULL means every
-- queue. Reads the finished_at indexes; a plain read, like browsing. Always returns at least
-- one row, so that the window start is known even when nothing finished (queue NULL then).
-- The minute is computed from a datetime2 anchor so that no datetime value is mixed in.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @anchor datetime2(6) = CAST('2000-01-01T00:00:00' AS datetime2(6));
DECLARE @window_end datetime2(6) = DATEADD(
    MINUTE, DATEDIFF(MINUTE, @anchor, SYSUTCDATETIME()) + 1, @anchor
);
DECLARE @window_start datetime2(6) = DATEADD(MINUTE, -@minutes, @window_end);

WITH finished AS (
    SELECT
        a.queue,
        a.status,
        a.finished_at
    FROM readpast_job_archive AS a
    WHERE a.finished_at >= @window_start
        AND a.finished_at < @window_end
        AND (@queue IS NULL OR a.queue = @queue)
    UNION ALL
    SELECT
        d.queue,
        d.status,
        d.finished_at
    FROM readpast_job_dead AS d
    WHERE d.finished_at >= @window_start
        AND d.finished_at < @window_end
        AND (@queue IS NULL OR d.queue = @queue)
),

counted AS (
    SELECT
        f.queue,
        f.status,
        DATEDIFF(MINUTE, @window_start, f.finished_at) AS bucket,
        COUNT_BIG(*) AS n
    FROM finished AS f
    GROUP BY f.queue, f.status, DATEDIFF(MINUTE, @window_start, f.finished_at)
)

SELECT
    @window_start AS window_start,
    c.queue,
    c.status,
    c.bucket,
    c.n
FROM (SELECT 1 AS one) AS w
LEFT JOIN counted AS c ON w.one = 1
ORDER BY c.queue ASC, c.bucket ASC, c.status ASC
OPTION (RECOMPILE);
