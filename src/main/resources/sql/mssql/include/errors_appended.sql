-- An attempt's error appended to a job's errors: @appended_errors becomes the last
-- @keep_errors entries of @errors (a JSON array, or NULL) followed by {"attempt", "at" (database
-- clock, UTC), "workerId", "error"} of @error_attempt, @error_worker and @error (null when
-- NULL). The one text of that rule on SQL Server.
SET @appended_errors = (
    SELECT N'[' + STRING_AGG(e.entry, N',') WITHIN GROUP (ORDER BY e.n ASC) + N']'
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
);
