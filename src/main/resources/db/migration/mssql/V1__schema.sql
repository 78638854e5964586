-- Readpast schema, SQL Server 2019+. Status codes: 0 PENDING, 1 LEASED, 2 PROCESSING (hot
-- table); 3 SUCCEEDED, 5 CANCELLED (archive table); 4 DEAD (dead-letter table).
-- String keys are nvarchar because mssql-jdbc sends strings as nvarchar by default; an
-- nvarchar parameter against a varchar column would turn index seeks into scans.

CREATE TABLE readpast_queue (
    name nvarchar(200) NOT NULL CONSTRAINT pk_readpast_queue PRIMARY KEY,
    max_workers int NULL,
    paused bit NOT NULL CONSTRAINT df_readpast_queue_paused DEFAULT 0,
    active bit NOT NULL CONSTRAINT df_readpast_queue_active DEFAULT 1,
    lease_seconds int NULL,
    max_attempts int NULL,
    backoff_base_ms bigint NULL,
    backoff_cap_ms bigint NULL,
    created_at datetime2(6) NOT NULL CONSTRAINT df_readpast_queue_created DEFAULT SYSUTCDATETIME(),
    updated_at datetime2(6) NOT NULL CONSTRAINT df_readpast_queue_updated DEFAULT SYSUTCDATETIME(),
    CONSTRAINT ck_readpast_queue_max_workers CHECK (max_workers IS NULL OR max_workers >= 0)
);

-- Capped queues only: the claim locks these rows to serialise claims on capped queues.
CREATE INDEX ix_readpast_queue_capped ON readpast_queue (name)
INCLUDE (max_workers, paused, active) WHERE max_workers IS NOT NULL;

-- Ids come from a sequence, not IDENTITY, so a job keeps its id when it moves between the
-- hot, archive and dead-letter tables and back (requeue) without IDENTITY_INSERT.
CREATE SEQUENCE readpast_job_id AS bigint START WITH 1 INCREMENT BY 1 CACHE 1000;

CREATE TABLE readpast_job (
    id bigint NOT NULL CONSTRAINT df_readpast_job_id DEFAULT (NEXT VALUE FOR readpast_job_id),
    queue nvarchar(200) NOT NULL,
    type nvarchar(200) NOT NULL,
    payload nvarchar(max) NOT NULL,
    tags nvarchar(max) NULL,
    idempotency_key nvarchar(200) NULL,
    priority int NOT NULL CONSTRAINT df_readpast_job_priority DEFAULT 0,
    status tinyint NOT NULL CONSTRAINT df_readpast_job_status DEFAULT 0,
    attempt int NOT NULL CONSTRAINT df_readpast_job_attempt DEFAULT 0,
    max_attempts int NOT NULL,
    due_at datetime2(6) NOT NULL,
    worker_id nvarchar(200) NULL,
    lease_id uniqueidentifier NULL,
    lease_seconds int NULL,
    lease_expires_at datetime2(6) NULL,
    heartbeat_at datetime2(6) NULL,
    progress nvarchar(max) NULL,
    cancel_requested bit NOT NULL CONSTRAINT df_readpast_job_cancel DEFAULT 0,
    last_error nvarchar(max) NULL,
    created_by nvarchar(200) NULL,
    modified_by nvarchar(200) NULL,
    created_at datetime2(6) NOT NULL CONSTRAINT df_readpast_job_created DEFAULT SYSUTCDATETIME(),
    started_at datetime2(6) NULL,
    updated_at datetime2(6) NOT NULL CONSTRAINT df_readpast_job_updated DEFAULT SYSUTCDATETIME(),
    CONSTRAINT pk_readpast_job PRIMARY KEY CLUSTERED (id),
    CONSTRAINT ck_readpast_job_status CHECK (status IN (0, 1, 2)),
    -- a pending job has no lease; a leased or processing one has one
    CONSTRAINT ck_readpast_job_lease CHECK (
        (status = 0 AND lease_id IS NULL) OR (status IN (1, 2) AND lease_id IS NOT NULL)
    )
);

-- READPAST skips row locks only; a claim must never meet a table lock. Claims take at most
-- limit x queues row locks, so escalation is switched off for the hot table. (Wrapped in
-- sp_executesql only so that the offline T-SQL parser used in CI can read this file.)
EXEC sp_executesql N'ALTER TABLE readpast_job SET (LOCK_ESCALATION = DISABLE);';

-- The claim seeks this index in claim order; the literal filter matters (a parameter
-- would stop the optimiser from using a filtered index).
CREATE INDEX ix_readpast_job_claim ON readpast_job (queue, priority DESC, due_at, id)
WHERE status = 0;

-- Leased/processing rows per queue: the max-workers count and the lease sweeper.
CREATE INDEX ix_readpast_job_active ON readpast_job (queue) WHERE status IN (1, 2);

-- Idempotent enqueue: one non-terminal job per key (duplicate key 2601 is handled).
CREATE UNIQUE INDEX ux_readpast_job_idempotency ON readpast_job (idempotency_key)
WHERE idempotency_key IS NOT NULL;

-- Archive and dead letters have no CHECK constraints, triggers or foreign keys, so they
-- stay valid targets for OUTPUT ... INTO.
CREATE TABLE readpast_job_archive (
    id bigint NOT NULL CONSTRAINT pk_readpast_job_archive PRIMARY KEY CLUSTERED,
    queue nvarchar(200) NOT NULL,
    type nvarchar(200) NOT NULL,
    payload nvarchar(max) NOT NULL,
    tags nvarchar(max) NULL,
    idempotency_key nvarchar(200) NULL,
    priority int NOT NULL,
    status tinyint NOT NULL,
    attempt int NOT NULL,
    max_attempts int NOT NULL,
    due_at datetime2(6) NOT NULL,
    worker_id nvarchar(200) NULL,
    progress nvarchar(max) NULL,
    last_error nvarchar(max) NULL,
    result nvarchar(max) NULL,
    created_by nvarchar(200) NULL,
    modified_by nvarchar(200) NULL,
    created_at datetime2(6) NOT NULL,
    started_at datetime2(6) NULL,
    updated_at datetime2(6) NOT NULL,
    finished_at datetime2(6) NOT NULL
);
CREATE INDEX ix_readpast_job_archive_finished ON readpast_job_archive (finished_at);

CREATE TABLE readpast_job_dead (
    id bigint NOT NULL CONSTRAINT pk_readpast_job_dead PRIMARY KEY CLUSTERED,
    queue nvarchar(200) NOT NULL,
    type nvarchar(200) NOT NULL,
    payload nvarchar(max) NOT NULL,
    tags nvarchar(max) NULL,
    idempotency_key nvarchar(200) NULL,
    priority int NOT NULL,
    status tinyint NOT NULL,
    attempt int NOT NULL,
    max_attempts int NOT NULL,
    due_at datetime2(6) NOT NULL,
    worker_id nvarchar(200) NULL,
    progress nvarchar(max) NULL,
    last_error nvarchar(max) NULL,
    result nvarchar(max) NULL,
    created_by nvarchar(200) NULL,
    modified_by nvarchar(200) NULL,
    created_at datetime2(6) NOT NULL,
    started_at datetime2(6) NULL,
    updated_at datetime2(6) NOT NULL,
    finished_at datetime2(6) NOT NULL
);
CREATE INDEX ix_readpast_job_dead_finished ON readpast_job_dead (finished_at);
CREATE INDEX ix_readpast_job_dead_queue ON readpast_job_dead (queue, id);
