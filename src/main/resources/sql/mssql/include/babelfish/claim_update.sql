-- Babelfish only (SqlServerDialect.BABELFISH): the claim's write as in include/claim_update.sql,
-- with the candidates in WHERE id IN (...) instead of a joined derived table. Babelfish turns an
-- UPDATE ... FROM ... JOIN into a subquery run again for every row of the target (measured: 70
-- ms for a claim of 10 over 800 rows, against 15 ms this way, where it is a hash semi-join run
-- once). SQL Server itself takes FORCESEEK only on a FROM-clause alias, hence the other form.
UPDATE readpast_job
SET
    status = 1,
    attempt = attempt + 1,
    worker_id = @worker_id,
    lease_id = NEWID(),
    lease_seconds = ISNULL(
        @lease_seconds,
        ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = readpast_job.queue), @default_lease_seconds)
    ),
    -- a job with timeoutSeconds: its lease never runs past its deadline
    lease_expires_at = DATEADD(
        SECOND,
        CASE
            WHEN timeout_seconds < ISNULL(
                @lease_seconds,
                ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = readpast_job.queue), @default_lease_seconds)
            ) THEN timeout_seconds
            ELSE ISNULL(
                @lease_seconds,
                ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = readpast_job.queue), @default_lease_seconds)
            )
        END,
        SYSUTCDATETIME()
    ),
    deadline_at = DATEADD(SECOND, timeout_seconds, SYSUTCDATETIME()),
    heartbeat_at = NULL,
    modified_by = COALESCE(@modified_by, modified_by),
    updated_at = SYSUTCDATETIME()
OUTPUT
    inserted.id, inserted.queue, inserted.type, inserted.payload, inserted.tags,
    inserted.idempotency_key, inserted.priority, inserted.status, inserted.attempt,
    inserted.max_attempts, inserted.due_at, inserted.worker_id, inserted.lease_id,
    inserted.lease_seconds, inserted.lease_expires_at, inserted.heartbeat_at, inserted.progress,
    inserted.cancel_requested, inserted.last_error, inserted.created_by, inserted.modified_by,
    inserted.created_at, inserted.started_at, inserted.updated_at, inserted.errors,
    inserted.webhook_url, inserted.expires_at, inserted.group_key, inserted.group_seq,
    inserted.traceparent, inserted.tracestate, inserted.fairness_key,
    inserted.batch_id, inserted.has_dependents, inserted.deps_left,
    inserted.timeout_seconds, inserted.deadline_at
INTO @claimed (
    id, queue, type, payload, tags,
    idempotency_key, priority, status, attempt,
    max_attempts, due_at, worker_id, lease_id,
    lease_seconds, lease_expires_at, heartbeat_at, progress,
    cancel_requested, last_error, created_by, modified_by,
    created_at, started_at, updated_at, errors,
    webhook_url, expires_at, group_key, group_seq,
    traceparent, tracestate, fairness_key,
    batch_id, has_dependents, deps_left,
    timeout_seconds, deadline_at
)
WHERE id IN (
    -- the best @limit candidates over every eligible queue
    SELECT TOP (@limit) c.id
    FROM @eligible AS e
    CROSS APPLY (
        -- the queue's due pending rows in claim order, skipping rows other claimers hold
        SELECT TOP (e.room)
            j.id,
            j.priority,
            j.due_at
        FROM readpast_job AS j WITH (
            UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_claim), FORCESEEK
        )
        WHERE j.queue = e.name
            AND j.status = 0
            AND j.due_at <= SYSUTCDATETIME()
            AND (j.expires_at IS NULL OR j.expires_at > SYSUTCDATETIME())
            -- a claim for some job types only (@types, a JSON array; NULL: every type), compared
            -- exactly (binary), as queue names are
            AND (
                @types IS NULL
                OR j.type IN (
                    SELECT CAST(ty.value AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@types) AS ty
                )
            )
            AND (
                j.group_key IS NULL
                OR NOT EXISTS (
                    SELECT 1
                    FROM readpast_job AS g WITH (READCOMMITTEDLOCK, INDEX (ix_readpast_job_group))
                    WHERE g.queue = j.queue
                        AND g.group_key IS NOT NULL -- the filter of ix_readpast_job_group
                        AND g.group_key = j.group_key
                        AND (g.status IN (1, 2) OR (g.status IN (0, 6) AND g.group_seq < j.group_seq))
                )
            )
        ORDER BY j.priority DESC, j.due_at ASC, j.id ASC
    ) AS c
    WHERE e.room > 0
    ORDER BY c.priority DESC, c.due_at ASC, c.id ASC
)
    -- re-checked at the update: a row no longer pending is never leased a second time
    AND status = 0;
