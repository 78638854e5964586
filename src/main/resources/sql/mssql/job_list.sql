-- Browse and search jobs newest first (by id) across the hot, archive and dead-letter tables,
-- at most @limit; keyset pagination: @after is the last id of the previous page (NULL for the
-- first page). Every filter is optional (NULL does not filter) and the same for GET /jobs and
-- the bulk actions (JobFilter): @statuses a JSON array of status codes; @tag a string element
-- of the JSON array in tags; @error a substring of the last error (CHARINDEX: no wildcards;
-- case as the column's collation); created and finished times as half-open ranges
-- [after, before); @payload a JSON object of scalar members the job's payload (an object) must
-- all have with the same JSON type and value (binary comparison). The filter is written once,
-- on the union: with OPTION (RECOMPILE) each call gets a plan for the filters it uses, pushed
-- into each table's scan, and TOP ... ORDER BY id DESC reads the three clustered keys newest
-- first. Plain reads: browsing sees everything and never blocks a claim. The lease id is never
-- returned.
SET NOCOUNT ON;
SET XACT_ABORT ON;

SELECT TOP (@limit) u.*
FROM (
    SELECT
        j.id, j.queue, j.type, j.payload, j.tags, j.idempotency_key, j.priority,
        j.status, j.attempt, j.max_attempts, j.due_at, j.worker_id, j.lease_expires_at,
        j.heartbeat_at, j.progress, j.cancel_requested, j.last_error,
        CAST(NULL AS nvarchar(max)) AS result, j.created_by, j.modified_by, j.created_at,
        j.started_at, j.updated_at, CAST(NULL AS datetime2(6)) AS finished_at, j.webhook_url,
        j.expires_at, j.group_key, j.traceparent, j.tracestate, j.fairness_key, j.batch_id,
        j.timeout_seconds, j.deadline_at, j.retry_policy
    FROM readpast_job AS j
    UNION ALL
    SELECT
        a.id, a.queue, a.type, a.payload, a.tags, a.idempotency_key, a.priority,
        a.status, a.attempt, a.max_attempts, a.due_at, a.worker_id,
        CAST(NULL AS datetime2(6)) AS lease_expires_at,
        CAST(NULL AS datetime2(6)) AS heartbeat_at, a.progress,
        CAST(0 AS bit) AS cancel_requested, a.last_error, a.result, a.created_by,
        a.modified_by, a.created_at, a.started_at, a.updated_at, a.finished_at, a.webhook_url,
        CAST(NULL AS datetime2(6)) AS expires_at, a.group_key, a.traceparent, a.tracestate,
        a.fairness_key, a.batch_id, a.timeout_seconds,
        CAST(NULL AS datetime2(6)) AS deadline_at, a.retry_policy
    FROM readpast_job_archive AS a
    UNION ALL
    SELECT
        d.id, d.queue, d.type, d.payload, d.tags, d.idempotency_key, d.priority,
        d.status, d.attempt, d.max_attempts, d.due_at, d.worker_id,
        CAST(NULL AS datetime2(6)) AS lease_expires_at,
        CAST(NULL AS datetime2(6)) AS heartbeat_at, d.progress,
        CAST(0 AS bit) AS cancel_requested, d.last_error, d.result, d.created_by,
        d.modified_by, d.created_at, d.started_at, d.updated_at, d.finished_at, d.webhook_url,
        CAST(NULL AS datetime2(6)) AS expires_at, d.group_key, d.traceparent, d.tracestate,
        d.fairness_key, d.batch_id, d.timeout_seconds,
        CAST(NULL AS datetime2(6)) AS deadline_at, d.retry_policy
    FROM readpast_job_dead AS d
) AS u
WHERE (@after IS NULL OR u.id < @after)
    AND (@queue IS NULL OR u.queue = @queue)
    AND (@type IS NULL OR u.type = @type)
    AND (
        @statuses IS NULL
        OR u.status IN (
            SELECT TRY_CONVERT(int, s.value)
            FROM OPENJSON(@statuses) AS s
            WHERE s.type = 2
        )
    )
    AND (
        @tag IS NULL
        OR EXISTS (
            SELECT 1
            FROM OPENJSON(u.tags) AS t
            WHERE t.type = 1 AND t.value = @tag
        )
    )
    AND (@fairness_key IS NULL OR u.fairness_key = @fairness_key)
    AND (@group_key IS NULL OR u.group_key = @group_key)
    AND (@batch_id IS NULL OR u.batch_id = @batch_id)
    AND (@error IS NULL OR CHARINDEX(@error, u.last_error) > 0)
    AND (@created_after IS NULL OR u.created_at >= @created_after)
    AND (@created_before IS NULL OR u.created_at < @created_before)
    AND (@finished_after IS NULL OR u.finished_at >= @finished_after)
    AND (@finished_before IS NULL OR u.finished_at < @finished_before)
    AND (
        @payload IS NULL
        OR NOT EXISTS (
            SELECT 1
            FROM OPENJSON(@payload) AS w
            WHERE NOT EXISTS (
                SELECT 1
                FROM OPENJSON(
                    CASE WHEN LEFT(LTRIM(u.payload), 1) = N'{' THEN u.payload ELSE N'{}' END
                ) AS p
                WHERE p.[key] COLLATE Latin1_General_100_BIN2 = w.[key] COLLATE Latin1_General_100_BIN2
                    AND p.type = w.type
                    AND p.value COLLATE Latin1_General_100_BIN2 = w.value COLLATE Latin1_General_100_BIN2
            )
        )
    )
ORDER BY u.id DESC
OPTION (RECOMPILE);
