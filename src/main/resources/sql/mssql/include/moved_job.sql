-- The rows a statement moves out of the hot table (to the archive or the dead letters). The
-- including statement fills @target with their ids, in a guarded SELECT that locks them
-- (UPDLOCK, held to the end of the transaction, so nothing changes them before they move);
-- moved_job_delete.sql then deletes them into @moved, which holds every column the archive,
-- the dead letters and the outbox need (batch_id and has_dependents too: the caller settles the
-- batch and the dependents of the moved jobs that have either).
DECLARE @target TABLE (id bigint NOT NULL PRIMARY KEY);

DECLARE @moved TABLE (
    id bigint NOT NULL PRIMARY KEY,
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    type nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    payload nvarchar(max) NOT NULL,
    tags nvarchar(max) NULL,
    idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
    priority int NOT NULL,
    status tinyint NOT NULL,
    attempt int NOT NULL,
    max_attempts int NOT NULL,
    due_at datetime2(6) NOT NULL,
    worker_id nvarchar(200) NULL,
    lease_id uniqueidentifier NULL,
    lease_seconds int NULL,
    lease_expires_at datetime2(6) NULL,
    heartbeat_at datetime2(6) NULL,
    progress nvarchar(max) NULL,
    cancel_requested bit NOT NULL,
    last_error nvarchar(max) NULL,
    created_by nvarchar(200) NULL,
    modified_by nvarchar(200) NULL,
    created_at datetime2(6) NOT NULL,
    started_at datetime2(6) NULL,
    updated_at datetime2(6) NOT NULL,
    errors nvarchar(max) NULL,
    webhook_url nvarchar(2000) NULL,
    group_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
    traceparent varchar(55) NULL,
    tracestate varchar(512) NULL,
    fairness_key nvarchar(200) NULL,
    batch_id bigint NULL,
    has_dependents bit NOT NULL,
    timeout_seconds int NULL,
    retry_policy nvarchar(max) NULL
);
