-- After a claim on rate-limited queues, in the same transaction (which holds their rows'
-- locks): count the claimed jobs in each queue's current window (epoch-aligned, database
-- clock; a new window starts from zero). @counts is a JSON array of {"queue", "n"}. The
-- updated names go OUTPUT ... INTO a table variable and are read back.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @counted TABLE (name nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL);
DECLARE @count TABLE (queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL, n int NOT NULL);

DECLARE @now_ms bigint = DATEDIFF_BIG(
    MILLISECOND, CAST('1970-01-01' AS datetime2(6)), SYSUTCDATETIME()
);

INSERT INTO @count (queue, n)
SELECT
    CAST(JSON_VALUE(x.value, '$.queue') AS nvarchar(200)) AS queue,
    TRY_CONVERT(int, JSON_VALUE(x.value, '$.n')) AS n
FROM OPENJSON(@counts) AS x
WHERE TRY_CONVERT(int, JSON_VALUE(x.value, '$.n')) IS NOT NULL;

-- the counts are read by subquery, not from a joined table: Babelfish loses a joined table
-- named in the SET list of an UPDATE ... OUTPUT INTO
UPDATE q
SET
    q.rate_window_count = CASE
        WHEN q.rate_window = @now_ms / q.rate_period_ms
            THEN q.rate_window_count + (SELECT SUM(c.n) FROM @count AS c WHERE c.queue = q.name)
        ELSE (SELECT SUM(c.n) FROM @count AS c WHERE c.queue = q.name)
    END,
    q.rate_window = @now_ms / q.rate_period_ms
OUTPUT inserted.name INTO @counted (name)
FROM readpast_queue AS q WITH (ROWLOCK)
WHERE q.rate_limit IS NOT NULL
    AND q.name IN (SELECT c.queue FROM @count AS c);

SELECT c.name
FROM @counted AS c;
