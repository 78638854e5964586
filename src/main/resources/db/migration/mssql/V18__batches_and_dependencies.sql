-- Batches and dependencies (docs/batches.md); the twin of PostgreSQL's V18.
--
-- WAITING (7): a job that names parents (dependsOn: jobs or batches) waits in the hot table,
-- outside every claim index (they hold status 0, or 6 for the promotion), until its last
-- parent settles. deps_left counts its parents not settled yet; dep_policy says what a parent
-- that ends DEAD or CANCELLED does to it: 0 cancels it, 1 runs it anyway.
-- batch_id: the batch the job belongs to (its outcome is counted there); has_dependents: some
-- job waits on this one. A move statement returns both, so that the broker settles the batch
-- and the children in the move's own transaction, and only for jobs that have either.
-- (Column-level CHECK constraints refer only to their own new column; the statements that
-- refer to columns added here are in sp_executesql, compiled apart, as in V16.)
ALTER TABLE readpast_job ADD batch_id bigint NULL;
ALTER TABLE readpast_job ADD has_dependents bit NOT NULL
CONSTRAINT df_readpast_job_has_dependents DEFAULT 0;
-- (dep_policy is smallint: on Babelfish, adding a tinyint NOT NULL column with a default fails
-- with "tuple already updated by self"; the CHECK constraints come below, with the others)
ALTER TABLE readpast_job ADD deps_left int NOT NULL
CONSTRAINT df_readpast_job_deps_left DEFAULT 0;
ALTER TABLE readpast_job ADD dep_policy smallint NOT NULL
CONSTRAINT df_readpast_job_dep_policy DEFAULT 0;
ALTER TABLE readpast_job_archive ADD batch_id bigint NULL;
ALTER TABLE readpast_job_archive ADD has_dependents bit NOT NULL
CONSTRAINT df_readpast_job_archive_has_dependents DEFAULT 0;
ALTER TABLE readpast_job_dead ADD batch_id bigint NULL;
ALTER TABLE readpast_job_dead ADD has_dependents bit NOT NULL
CONSTRAINT df_readpast_job_dead_has_dependents DEFAULT 0;

-- the hot table's states: 7 WAITING joins 0 PENDING, 1 LEASED, 2 PROCESSING and 6 SCHEDULED;
-- a waiting job has no lease
ALTER TABLE readpast_job DROP CONSTRAINT ck_readpast_job_lease;
ALTER TABLE readpast_job DROP CONSTRAINT ck_readpast_job_status;
ALTER TABLE readpast_job ADD CONSTRAINT ck_readpast_job_status CHECK (status IN (0, 1, 2, 6, 7));
ALTER TABLE readpast_job ADD CONSTRAINT ck_readpast_job_lease CHECK (
    (status IN (0, 6, 7) AND lease_id IS NULL) OR (status IN (1, 2) AND lease_id IS NOT NULL)
);

-- a job waits exactly while it has parents left ((status = 7) = (deps_left > 0) on PostgreSQL);
-- a batch's jobs still in the hot table (cancel, progress), and its finished ones (literal
-- filters: the statements repeat "batch_id IS NOT NULL" so that these can be used)
EXEC sp_executesql N'
ALTER TABLE readpast_job ADD CONSTRAINT ck_readpast_job_deps_left CHECK (deps_left >= 0);
ALTER TABLE readpast_job ADD CONSTRAINT ck_readpast_job_dep_policy CHECK (dep_policy IN (0, 1));
ALTER TABLE readpast_job ADD CONSTRAINT ck_readpast_job_waiting CHECK (
    (status = 7 AND deps_left > 0) OR (status <> 7 AND deps_left <= 0)
);
CREATE INDEX ix_readpast_job_batch ON readpast_job (batch_id, status) WHERE batch_id IS NOT NULL;
CREATE INDEX ix_readpast_job_archive_batch ON readpast_job_archive (batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX ix_readpast_job_dead_batch ON readpast_job_dead (batch_id) WHERE batch_id IS NOT NULL;
';

-- A batch. queues: the JSON array of its jobs' queues and its callback's (a key must cover
-- all of them to read or cancel it). fire_on: 0 when every job has finished, 1 only when
-- every job succeeded, 2 at the first DEAD job. callback: the job to enqueue when it fires
-- (JSON, null: none); webhook_url: where to POST when it fires (null: none). fired_at is set
-- once, by the statement whose counts make it fire, under the row's lock: exactly once.
-- (No index on id DESC as PostgreSQL has: the clustered primary key is read backwards.)
CREATE TABLE readpast_batch (
    id bigint IDENTITY (1, 1) NOT NULL CONSTRAINT pk_readpast_batch PRIMARY KEY CLUSTERED,
    queues nvarchar(max) NOT NULL,
    fire_on tinyint NOT NULL CONSTRAINT ck_readpast_batch_fire_on CHECK (fire_on IN (0, 1, 2)),
    callback nvarchar(max) NULL,
    webhook_url nvarchar(2000) NULL,
    closed bit NOT NULL CONSTRAINT df_readpast_batch_closed DEFAULT 0,
    total int NOT NULL CONSTRAINT df_readpast_batch_total DEFAULT 0
    CONSTRAINT ck_readpast_batch_total CHECK (total >= 0),
    succeeded int NOT NULL CONSTRAINT df_readpast_batch_succeeded DEFAULT 0
    CONSTRAINT ck_readpast_batch_succeeded CHECK (succeeded >= 0),
    dead int NOT NULL CONSTRAINT df_readpast_batch_dead DEFAULT 0
    CONSTRAINT ck_readpast_batch_dead CHECK (dead >= 0),
    cancelled int NOT NULL CONSTRAINT df_readpast_batch_cancelled DEFAULT 0
    CONSTRAINT ck_readpast_batch_cancelled CHECK (cancelled >= 0),
    has_dependents bit NOT NULL CONSTRAINT df_readpast_batch_has_dependents DEFAULT 0,
    callback_job_id bigint NULL,
    created_by nvarchar(200) NULL,
    created_at datetime2(6) NOT NULL CONSTRAINT df_readpast_batch_created DEFAULT SYSUTCDATETIME(),
    updated_at datetime2(6) NOT NULL CONSTRAINT df_readpast_batch_updated DEFAULT SYSUTCDATETIME(),
    closed_at datetime2(6) NULL,
    finished_at datetime2(6) NULL,
    fired_at datetime2(6) NULL,
    cancelled_at datetime2(6) NULL,
    CONSTRAINT ck_readpast_batch_counts CHECK (succeeded + dead + cancelled <= total)
);

-- parent -> child edges: parent_kind 'j' (a job) or 'b' (a batch; binary collation, so that
-- it compares as on PostgreSQL). outcome: null while the parent has not settled, then its
-- outcome (3 succeeded, 4 dead, 5 cancelled; a batch is 3 when all its jobs succeeded, else
-- 4). Settling sets it once, so a requeued parent that ends a second time counts for nobody
-- again. The child index carries outcome, so that a job's open edges come from it alone.
CREATE TABLE readpast_job_dep (
    parent_kind nchar(1) COLLATE Latin1_General_100_BIN2 NOT NULL
    CONSTRAINT ck_readpast_job_dep_kind CHECK (parent_kind IN (N'j', N'b')),
    parent_id bigint NOT NULL,
    child_id bigint NOT NULL,
    outcome tinyint NULL,
    CONSTRAINT pk_readpast_job_dep PRIMARY KEY CLUSTERED (parent_kind, parent_id, child_id)
);
CREATE INDEX ix_readpast_job_dep_child ON readpast_job_dep (child_id) INCLUDE (outcome);

-- settling a batch with many waiting children locks one edge row each: no table lock, which
-- would stop every other settlement and enqueue with dependencies (as V13 does for the
-- archive; not on Babelfish, as there)
IF SERVERPROPERTY('babelfish') IS NULL
BEGIN
    EXEC sp_executesql N'ALTER TABLE readpast_job_dep SET (LOCK_ESCALATION = DISABLE);';
END;

-- a fired batch's webhook goes into the same outbox (job_id holds the batch id)
ALTER TABLE readpast_webhook DROP CONSTRAINT ck_readpast_webhook_event;
ALTER TABLE readpast_webhook ADD CONSTRAINT ck_readpast_webhook_event
CHECK (event IN (N'job.succeeded', N'job.dead', N'batch.fired'));
