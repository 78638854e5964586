-- Recurring schedules (PUT /schedules/{name}). A schedule is a cron expression in a time zone
-- and a job template; the schedule sweeper on every instance enqueues the template's job at
-- each fire time. next_fire_at is the next slot not yet handled (database clock decides
-- when it is due); the sweeper advances it in the same transaction that fires the slot.
CREATE TABLE readpast_schedule (
    name nvarchar(100) NOT NULL CONSTRAINT pk_readpast_schedule PRIMARY KEY,
    cron nvarchar(200) NOT NULL,
    time_zone nvarchar(100) NOT NULL,
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    type nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    payload nvarchar(max) NOT NULL,
    tags nvarchar(max) NULL,
    priority int NOT NULL CONSTRAINT df_readpast_schedule_priority DEFAULT 0,
    max_attempts int NULL,
    overlap nvarchar(10) NOT NULL,
    catch_up nvarchar(10) NOT NULL,
    paused bit NOT NULL CONSTRAINT df_readpast_schedule_paused DEFAULT 0,
    next_fire_at datetime2(6) NOT NULL,
    last_fire_at datetime2(6) NULL,
    last_job_id bigint NULL,
    created_by nvarchar(200) NULL,
    modified_by nvarchar(200) NULL,
    created_at datetime2(6) NOT NULL CONSTRAINT df_readpast_schedule_created DEFAULT SYSUTCDATETIME(),
    updated_at datetime2(6) NOT NULL CONSTRAINT df_readpast_schedule_updated DEFAULT SYSUTCDATETIME(),
    CONSTRAINT ck_readpast_schedule_overlap CHECK (overlap IN (N'ALLOW', N'SKIP')),
    CONSTRAINT ck_readpast_schedule_catch_up CHECK (catch_up IN (N'ALL', N'LATEST', N'NONE'))
);

-- The sweeper's question: which schedules are due now.
CREATE INDEX ix_readpast_schedule_due ON readpast_schedule (next_fire_at) WHERE paused = 0;

-- One row per handled slot: the unique key (schedule, slot) is what makes a slot fire at
-- most once, whatever the number of instances. outcome 1 = a job was enqueued (job_id),
-- 2 = skipped because the previous job was still running (overlap SKIP).
CREATE TABLE readpast_schedule_fire (
    schedule_name nvarchar(100) NOT NULL,
    slot_at datetime2(6) NOT NULL,
    outcome tinyint NOT NULL,
    job_id bigint NULL,
    fired_at datetime2(6) NOT NULL CONSTRAINT df_readpast_schedule_fire_fired DEFAULT SYSUTCDATETIME(),
    CONSTRAINT pk_readpast_schedule_fire PRIMARY KEY CLUSTERED (schedule_name, slot_at),
    CONSTRAINT ck_readpast_schedule_fire_outcome CHECK (outcome IN (1, 2))
);
CREATE INDEX ix_readpast_schedule_fire_fired ON readpast_schedule_fire (fired_at);
