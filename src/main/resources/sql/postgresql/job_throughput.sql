-- Finished jobs per minute over the last :minutes minutes, per queue and outcome (3 SUCCEEDED,
-- 5 CANCELLED from the archive, 4 DEAD from the dead letters), on the database clock. The
-- window ends at the start of the next minute, so its last bucket is the current, partial
-- minute; bucket k counts the jobs finished in [window_start + k min, window_start + k + 1 min).
-- A NULL queue filter means every queue. Reads the finished_at indexes. Always returns at least one
-- row, so that the window start is known even when nothing finished (queue NULL then).
WITH w AS (
    SELECT date_trunc('minute', now()) + interval '1 minute'
               - CAST(:minutes AS integer) * interval '1 minute' AS window_start,
           date_trunc('minute', now()) + interval '1 minute' AS window_end
),
finished AS (
    SELECT a.queue, a.status, a.finished_at
    FROM readpast_job_archive AS a, w
    WHERE a.finished_at >= w.window_start AND a.finished_at < w.window_end
      AND (CAST(:queue AS text) IS NULL OR a.queue = :queue)
    UNION ALL
    SELECT d.queue, d.status, d.finished_at
    FROM readpast_job_dead AS d, w
    WHERE d.finished_at >= w.window_start AND d.finished_at < w.window_end
      AND (CAST(:queue AS text) IS NULL OR d.queue = :queue)
),
counted AS (
    SELECT f.queue, f.status,
           CAST(floor(extract(epoch FROM (f.finished_at - w.window_start)) / 60) AS integer) AS bucket,
           count(*) AS n
    FROM finished AS f, w
    GROUP BY 1, 2, 3
)
SELECT w.window_start, c.queue, c.status, c.bucket, c.n
FROM w
LEFT JOIN counted AS c ON true
ORDER BY c.queue, c.bucket, c.status
