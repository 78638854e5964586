-- Browse jobs newest first (by id) across the hot, archive and dead-letter tables, with
-- optional filters, at most @limit; keyset pagination: @after is the last id of the previous
-- page (NULL for the first page). @statuses is a JSON array of status codes, or NULL for
-- all; @tag matches a string element of the JSON array in tags. Each table gives at most
-- @limit rows, newest first, then the best @limit of those. The lease id is never returned.
-- Plain reads: browsing sees everything. OPTION (RECOMPILE) lets each call get a plan for
-- the filters it actually uses (a seek on the queue indexes when @queue is given).
SET NOCOUNT ON;
SET XACT_ABORT ON;

SELECT TOP (@limit) u.*
FROM (
    SELECT hot.*
    FROM (
        SELECT TOP (@limit)
            j.id, j.queue, j.type, j.payload, j.tags, j.idempotency_key, j.priority,
            j.status, j.attempt, j.max_attempts, j.due_at, j.worker_id, j.lease_expires_at,
            j.heartbeat_at, j.progress, j.cancel_requested, j.last_error,
            CAST(NULL AS nvarchar(max)) AS result, j.created_by, j.modified_by, j.created_at,
            j.started_at, j.updated_at, CAST(NULL AS datetime2(6)) AS finished_at, j.webhook_url,
            j.expires_at, j.group_key, j.traceparent, j.tracestate, j.fairness_key
        FROM readpast_job AS j
        WHERE (@after IS NULL OR j.id < @after)
            AND (@queue IS NULL OR j.queue = @queue)
            AND (@type IS NULL OR j.type = @type)
            AND (
                @statuses IS NULL
                OR j.status IN (
                    SELECT TRY_CONVERT(int, s.value)
                    FROM OPENJSON(@statuses) AS s
                    WHERE s.type = 2
                )
            )
            AND (
                @tag IS NULL
                OR EXISTS (
                    SELECT 1
                    FROM OPENJSON(j.tags) AS t
                    WHERE t.type = 1 AND t.value = @tag
                )
            )
        ORDER BY j.id DESC
    ) AS hot
    UNION ALL
    SELECT archived.*
    FROM (
        SELECT TOP (@limit)
            a.id, a.queue, a.type, a.payload, a.tags, a.idempotency_key, a.priority,
            a.status, a.attempt, a.max_attempts, a.due_at, a.worker_id,
            CAST(NULL AS datetime2(6)) AS lease_expires_at,
            CAST(NULL AS datetime2(6)) AS heartbeat_at, a.progress,
            CAST(0 AS bit) AS cancel_requested, a.last_error, a.result, a.created_by,
            a.modified_by, a.created_at, a.started_at, a.updated_at, a.finished_at, a.webhook_url,
            CAST(NULL AS datetime2(6)) AS expires_at, a.group_key, a.traceparent, a.tracestate, a.fairness_key
        FROM readpast_job_archive AS a
        WHERE (@after IS NULL OR a.id < @after)
            AND (@queue IS NULL OR a.queue = @queue)
            AND (@type IS NULL OR a.type = @type)
            AND (
                @statuses IS NULL
                OR a.status IN (
                    SELECT TRY_CONVERT(int, s.value)
                    FROM OPENJSON(@statuses) AS s
                    WHERE s.type = 2
                )
            )
            AND (
                @tag IS NULL
                OR EXISTS (
                    SELECT 1
                    FROM OPENJSON(a.tags) AS t
                    WHERE t.type = 1 AND t.value = @tag
                )
            )
        ORDER BY a.id DESC
    ) AS archived
    UNION ALL
    SELECT dead.*
    FROM (
        SELECT TOP (@limit)
            d.id, d.queue, d.type, d.payload, d.tags, d.idempotency_key, d.priority,
            d.status, d.attempt, d.max_attempts, d.due_at, d.worker_id,
            CAST(NULL AS datetime2(6)) AS lease_expires_at,
            CAST(NULL AS datetime2(6)) AS heartbeat_at, d.progress,
            CAST(0 AS bit) AS cancel_requested, d.last_error, d.result, d.created_by,
            d.modified_by, d.created_at, d.started_at, d.updated_at, d.finished_at, d.webhook_url,
            CAST(NULL AS datetime2(6)) AS expires_at, d.group_key, d.traceparent, d.tracestate, d.fairness_key
        FROM readpast_job_dead AS d
        WHERE (@after IS NULL OR d.id < @after)
            AND (@queue IS NULL OR d.queue = @queue)
            AND (@type IS NULL OR d.type = @type)
            AND (
                @statuses IS NULL
                OR d.status IN (
                    SELECT TRY_CONVERT(int, s.value)
                    FROM OPENJSON(@statuses) AS s
                    WHERE s.type = 2
                )
            )
            AND (
                @tag IS NULL
                OR EXISTS (
                    SELECT 1
                    FROM OPENJSON(d.tags) AS t
                    WHERE t.type = 1 AND t.value = @tag
                )
            )
        ORDER BY d.id DESC
    ) AS dead
) AS u
ORDER BY u.id DESC
OPTION (RECOMPILE);
