-- SQL Server review fixes, second round (reviews/tsql-review.md: M1, M3, L1, L8, L10).
--
-- 1. SCHEDULED (6): a pending job whose due time is still ahead (a delayed enqueue, a retry
--    backing off) is stored as 6, outside the claim index (which holds status 0 only), so
--    that due rows are never read behind a backlog of future ones. Claims promote rows of 6
--    whose time has come to 0 (ix_readpast_job_scheduled, in due order) before they claim.
--    Both count as PENDING to the API. The expiry index covers both.
-- 2. The group probe seeks: status is in the key, so "a member leased or processing" and "a
--    pending member before this one" are two seeks each, not a read of the whole group.
-- 3. Schedule names and API key names compare by code point, as on PostgreSQL (not on
--    Babelfish, which cannot change a column's collation; see V5).
-- 4. No lock escalation on the archive, dead-letter and webhook tables either: a batch ack
--    of many jobs inserts that many rows there, and a table lock would block every other ack
--    and the webhook senders (READPAST skips row locks only).
-- 5. OPTIMIZE_FOR_SEQUENTIAL_KEY also on Azure SQL Database and Managed Instance (engine
--    editions 5 and 8 report major version 12), and on the webhook table's key.
-- (Statements SQL Server must compile apart from the rest are wrapped in sp_executesql, so that
-- the offline T-SQL parser used in CI can read this file.)

ALTER TABLE readpast_job DROP CONSTRAINT ck_readpast_job_lease;
ALTER TABLE readpast_job DROP CONSTRAINT ck_readpast_job_status;
ALTER TABLE readpast_job ADD CONSTRAINT ck_readpast_job_status CHECK (status IN (0, 1, 2, 6));
ALTER TABLE readpast_job ADD CONSTRAINT ck_readpast_job_lease CHECK (
    (status IN (0, 6) AND lease_id IS NULL) OR (status IN (1, 2) AND lease_id IS NOT NULL)
);

UPDATE readpast_job
SET status = 6
WHERE status = 0
    AND due_at > SYSUTCDATETIME();

CREATE INDEX ix_readpast_job_scheduled ON readpast_job (queue, due_at, id)
WHERE status = 6;

DROP INDEX ix_readpast_job_expiry ON readpast_job;
CREATE INDEX ix_readpast_job_expiry ON readpast_job (expires_at)
WHERE status IN (0, 6) AND expires_at IS NOT NULL;

DROP INDEX ix_readpast_job_group ON readpast_job;
CREATE INDEX ix_readpast_job_group ON readpast_job (queue, group_key, status, group_seq)
WHERE group_key IS NOT NULL;

IF SERVERPROPERTY('babelfish') IS NULL
BEGIN
    EXEC sp_executesql N'
ALTER TABLE readpast_schedule_fire DROP CONSTRAINT pk_readpast_schedule_fire;
ALTER TABLE readpast_schedule_fire ALTER COLUMN schedule_name nvarchar(100) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_schedule_fire ADD CONSTRAINT pk_readpast_schedule_fire PRIMARY KEY CLUSTERED (schedule_name, slot_at);
ALTER TABLE readpast_schedule DROP CONSTRAINT pk_readpast_schedule;
ALTER TABLE readpast_schedule ALTER COLUMN name nvarchar(100) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_schedule ADD CONSTRAINT pk_readpast_schedule PRIMARY KEY (name);
ALTER TABLE readpast_api_key DROP CONSTRAINT pk_readpast_api_key;
ALTER TABLE readpast_api_key ALTER COLUMN name nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_api_key ADD CONSTRAINT pk_readpast_api_key PRIMARY KEY (name);
ALTER TABLE readpast_job_archive SET (LOCK_ESCALATION = DISABLE);
ALTER TABLE readpast_job_dead SET (LOCK_ESCALATION = DISABLE);
ALTER TABLE readpast_webhook SET (LOCK_ESCALATION = DISABLE);
';
END;

IF CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 15
    OR CAST(SERVERPROPERTY('EngineEdition') AS int) IN (5, 8)
BEGIN
    EXEC sp_executesql N'ALTER INDEX pk_readpast_job ON readpast_job SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);
ALTER INDEX pk_readpast_job_archive ON readpast_job_archive SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);
ALTER INDEX pk_readpast_job_dead ON readpast_job_dead SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);
ALTER INDEX pk_readpast_webhook ON readpast_webhook SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);';
END;
