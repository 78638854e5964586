-- Babelfish only (SqlServerDialect.BABELFISH): queue_lock_capped's second step as a write,
-- because Babelfish ignores UPDLOCK (and READPAST): a locking read there locks nothing, and claims
-- on a capped queue would not take turns, so the cap would not hold. An UPDATE that changes
-- nothing takes a real row lock, held to the end of the transaction, which the claims of the
-- queue wait for (nothing is skipped on Babelfish).
DECLARE @locked TABLE (
    name nvarchar(200) NOT NULL PRIMARY KEY,
    rate_limit int NULL,
    fair bit NOT NULL
);

UPDATE readpast_queue
SET updated_at = updated_at
OUTPUT inserted.name, inserted.rate_limit, inserted.fair INTO @locked (name, rate_limit, fair)
WHERE (max_workers IS NOT NULL OR rate_limit IS NOT NULL OR key_max_workers IS NOT NULL
        OR key_rate_limit IS NOT NULL)
    AND paused = 0
    AND active = 1
    AND name IN (SELECT d.name FROM @due AS d);

SELECT
    l.name,
    CASE WHEN l.rate_limit IS NULL THEN CAST(0 AS bit) ELSE CAST(1 AS bit) END AS rate_limited,
    l.fair,
    -- nothing is skipped here: every queue returned is locked (the caller never tries again)
    CAST(1 AS bit) AS locked
FROM @locked AS l
ORDER BY l.name;
