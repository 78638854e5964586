-- The claim's table variables (include/claim.sql): the eligible queues with their lease length
-- and free slots, each queue's share of a claim over several queues, and the claimed rows (every
-- column, from the UPDATE's OUTPUT). Names in the binary collation the tables' key columns have
-- on SQL Server (V5), so that they compare as the tables do and the seeks on queue stay seeks.
DECLARE @eligible TABLE (
    name nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY,
    lease_seconds int NULL,
    room int NOT NULL
);

DECLARE @share TABLE (
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY,
    n int NOT NULL
);

DECLARE @claimed TABLE (
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
    expires_at datetime2(6) NULL,
    group_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
    group_seq bigint NULL,
    traceparent varchar(55) NULL,
    tracestate varchar(512) NULL,
    fairness_key nvarchar(200) NULL,
    batch_id bigint NULL,
    has_dependents bit NOT NULL,
    deps_left int NOT NULL,
    timeout_seconds int NULL,
    deadline_at datetime2(6) NULL,
    -- which of the merged claims the row went to (include/claim_slices.sql)
    claimer int NULL
);
