-- Recurring schedules (PUT /schedules/{name}). A schedule is a cron expression in a time zone
-- and a job template; the schedule sweeper on every instance enqueues the template's job at
-- each fire time. next_fire_at is the next slot not yet handled (database clock decides
-- when it is due); the sweeper advances it in the same transaction that fires the slot.
CREATE TABLE readpast_schedule (
    name          varchar(100) PRIMARY KEY,
    cron          varchar(200) NOT NULL,
    time_zone     varchar(100) NOT NULL,
    queue         varchar(200) NOT NULL,
    type          varchar(200) NOT NULL,
    payload       text NOT NULL,
    tags          text NULL,
    priority      integer NOT NULL DEFAULT 0,
    max_attempts  integer NULL,
    overlap       varchar(10) NOT NULL CHECK (overlap IN ('ALLOW', 'SKIP')),
    catch_up      varchar(10) NOT NULL CHECK (catch_up IN ('ALL', 'LATEST', 'NONE')),
    paused        boolean NOT NULL DEFAULT false,
    next_fire_at  timestamptz NOT NULL,
    last_fire_at  timestamptz NULL,
    last_job_id   bigint NULL,
    created_by    varchar(200) NULL,
    modified_by   varchar(200) NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
-- The sweeper's question: which schedules are due now.
CREATE INDEX readpast_schedule_due ON readpast_schedule (next_fire_at) WHERE NOT paused;

-- One row per handled slot: the unique key (schedule, slot) is what makes a slot fire at
-- most once, whatever the number of instances. outcome 1 = a job was enqueued (job_id),
-- 2 = skipped because the previous job was still running (overlap SKIP).
CREATE TABLE readpast_schedule_fire (
    schedule_name  varchar(100) NOT NULL,
    slot_at        timestamptz NOT NULL,
    outcome        smallint NOT NULL CHECK (outcome IN (1, 2)),
    job_id         bigint NULL,
    fired_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (schedule_name, slot_at)
);
CREATE INDEX readpast_schedule_fire_fired ON readpast_schedule_fire (fired_at);
