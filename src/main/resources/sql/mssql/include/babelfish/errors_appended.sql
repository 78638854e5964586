-- Babelfish only (SqlServerDialect.BABELFISH): the rule of include/errors_appended.sql without
-- STRING_AGG ... WITHIN GROUP, which Babelfish 4.2 refuses over a derived table or a table
-- variable ("The string_agg function requires 2 arguments"): the entries come ordered from a
-- TOP ... ORDER BY derived table instead, an order PostgreSQL's string_agg keeps.
SET @appended_errors = (
    SELECT N'[' + STRING_AGG(o.entry, N',') + N']'
    FROM (
        SELECT TOP (2147483647) e.entry
        FROM (
            SELECT
                CAST(x.[key] AS int) AS n,
                x.value AS entry
            FROM OPENJSON(@errors) AS x
            UNION ALL
            SELECT
                2147483647 AS n,
                CAST(N'{"attempt":' AS nvarchar(max)) + CAST(@error_attempt AS nvarchar(11))
                + N',"at":"' + REPLACE(CONVERT(nvarchar(33), SYSUTCDATETIME(), 127), N' ', N'T') + N'Z"'
                + N',"workerId":'
                + COALESCE(N'"' + STRING_ESCAPE(@error_worker, 'json') + N'"', N'null')
                + N',"error":' + COALESCE(N'"' + STRING_ESCAPE(@error, 'json') + N'"', N'null') + N'}' AS entry
        ) AS e
        WHERE e.n > (SELECT COUNT(*) FROM OPENJSON(@errors)) - @keep_errors
        ORDER BY e.n ASC
    ) AS o
);
