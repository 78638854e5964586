-- After a claim on rate-limited queues, in the same transaction (which holds their rows'
-- update locks, queue_lock_capped): count the claimed jobs in each queue's current window
-- (epoch-aligned, database clock; a new window starts from zero). @counts is a JSON array of
-- {"queue", "n"}. The count is in the queue's tally row (V27, review 2's N1: a claim never
-- writes the queue row, so that it holds queue rows with update locks only), the last lock the
-- claim takes. The updated names go OUTPUT ... INTO a table variable and are read back.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @counted TABLE (name nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL);
DECLARE @count TABLE (
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY,
    n int NOT NULL,
    rate_window bigint NOT NULL
);

DECLARE @now_ms bigint = DATEDIFF_BIG(
    MILLISECOND, CAST('1970-01-01' AS datetime2(6)), SYSUTCDATETIME()
);

-- each queue's current window, from its period (the queue row this transaction locked)
INSERT INTO @count (queue, n, rate_window)
SELECT
    q.name,
    SUM(x.n),
    @now_ms / q.rate_period_ms
FROM (
    SELECT
        CAST(JSON_VALUE(j.value, '$.queue') AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 AS queue,
        TRY_CONVERT(int, JSON_VALUE(j.value, '$.n')) AS n
    FROM OPENJSON(@counts) AS j
) AS x
INNER JOIN readpast_queue AS q WITH (ROWLOCK, INDEX (pk_readpast_queue), FORCESEEK) ON q.name = x.queue
WHERE x.n IS NOT NULL
    AND q.rate_limit IS NOT NULL
GROUP BY q.name, q.rate_period_ms;

-- the counts are read by subquery, not from a joined table: Babelfish loses a joined table
-- named in the SET list of an UPDATE ... OUTPUT INTO
UPDATE t
SET
    t.rate_window_count = CASE
        WHEN t.rate_window = (SELECT c.rate_window FROM @count AS c WHERE c.queue = t.queue)
            THEN t.rate_window_count + (SELECT c.n FROM @count AS c WHERE c.queue = t.queue)
        ELSE (SELECT c.n FROM @count AS c WHERE c.queue = t.queue)
    END,
    t.rate_window = (SELECT c.rate_window FROM @count AS c WHERE c.queue = t.queue)
OUTPUT inserted.queue INTO @counted (name)
FROM readpast_queue_tally AS t WITH (ROWLOCK)
WHERE t.queue IN (SELECT c.queue FROM @count AS c);

SELECT c.name
FROM @counted AS c;
