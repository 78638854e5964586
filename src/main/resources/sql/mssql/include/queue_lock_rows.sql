-- queue_lock_capped's second step: lock the rows of the queues in @due, on the clustered primary
-- key, in name order, UPDLOCK with READPAST (a row another transaction holds is skipped, never
-- waited for); paused and active checked again under the lock. Returns every queue of @due:
-- the locked ones with whether each is rate-limited or fair and locked = 1; one another
-- transaction holds with locked = 0 (the caller tries again once that claim has committed,
-- rather than answer "nothing claimable" while the queue has room and due work).
DECLARE @held TABLE (
    name nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY,
    rate_limited bit NOT NULL,
    fair bit NOT NULL
);

INSERT INTO @held (name, rate_limited, fair)
SELECT
    q.name,
    CASE WHEN q.rate_limit IS NULL THEN CAST(0 AS bit) ELSE CAST(1 AS bit) END AS rate_limited,
    q.fair
FROM @due AS d
-- a join, not IN (subquery): FORCESEEK with IN (subquery) can fail to plan (error 8622);
-- explicit collation: the column's own on SQL Server (V5), and never a conflict where the
-- column kept another one (Babelfish)
INNER JOIN readpast_queue AS q WITH (
    UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (pk_readpast_queue), FORCESEEK
) ON q.name = d.name COLLATE Latin1_General_100_BIN2
WHERE (q.max_workers IS NOT NULL OR q.rate_limit IS NOT NULL OR q.key_max_workers IS NOT NULL
        OR q.key_rate_limit IS NOT NULL)
    AND q.paused = 0
    AND q.active = 1
ORDER BY q.name;

SELECT
    d.name,
    COALESCE(h.rate_limited, CAST(0 AS bit)) AS rate_limited,
    COALESCE(h.fair, CAST(0 AS bit)) AS fair,
    CASE WHEN h.name IS NULL THEN CAST(0 AS bit) ELSE CAST(1 AS bit) END AS locked
FROM @due AS d
LEFT JOIN @held AS h ON h.name = d.name
ORDER BY d.name;
