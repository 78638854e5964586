-- SQL Server review fixes (issue 10).
--
-- 1. Binary collation for the keys the broker compares: queue names, job types and
--    idempotency keys. A case-insensitive database default made 'Mail' and 'mail' one queue
--    and one key on SQL Server but two on PostgreSQL, and the long-poll wake-ups (Java
--    String.equals) disagreed with the claim's comparison. Latin1_General_100_BIN2 compares
--    code points, as PostgreSQL's "C"-like equality does. (SQL Server ignores trailing
--    spaces in = under every collation: the API refuses names and keys that end in a space.)
--    The columns are in indexes and a primary key, which are dropped first and built again.
--    Babelfish (SERVERPROPERTY('babelfish') = 1) cannot change a column's collation
--    ('COLLATE in ALTER TABLE ALTER COLUMN' is not supported there): it keeps its server
--    collation, and README says how to make that one case-sensitive.
-- 2. The active index carries status, so leased and processing counts come from it alone.
-- 3. An index for the lease sweeper (leases past their expiry, oldest first).
-- 4. CHECK constraints on the archive and dead-letter tables, as PostgreSQL has. No
--    statement writes into these tables with OUTPUT ... INTO (which a CHECK constraint would
--    forbid): every OUTPUT goes into a table variable first.
-- 5. OPTIMIZE_FOR_SEQUENTIAL_KEY on the ever-increasing primary keys (last-page insert
--    contention), on SQL Server 2019 (major version 15) and later only. (Wrapped in
--    sp_executesql so that the offline T-SQL parser used in CI can read this file.)

IF SERVERPROPERTY('babelfish') IS NULL
BEGIN
    EXEC sp_executesql N'
DROP INDEX ix_readpast_queue_capped ON readpast_queue;
ALTER TABLE readpast_queue DROP CONSTRAINT pk_readpast_queue;
ALTER TABLE readpast_queue ALTER COLUMN name nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_queue ADD CONSTRAINT pk_readpast_queue PRIMARY KEY CLUSTERED (name);
CREATE INDEX ix_readpast_queue_capped ON readpast_queue (name)
INCLUDE (max_workers, paused, active) WHERE max_workers IS NOT NULL;

DROP INDEX ix_readpast_job_claim ON readpast_job;
DROP INDEX ux_readpast_job_idempotency ON readpast_job;
DROP INDEX ix_readpast_job_queue_id ON readpast_job;
DROP INDEX ix_readpast_job_active ON readpast_job;
ALTER TABLE readpast_job ALTER COLUMN queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_job ALTER COLUMN type nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_job ALTER COLUMN idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
CREATE INDEX ix_readpast_job_claim ON readpast_job (queue, priority DESC, due_at, id)
WHERE status = 0;
CREATE UNIQUE INDEX ux_readpast_job_idempotency ON readpast_job (idempotency_key)
WHERE idempotency_key IS NOT NULL;
CREATE INDEX ix_readpast_job_queue_id ON readpast_job (queue, id);
CREATE INDEX ix_readpast_job_active ON readpast_job (queue) WHERE status IN (1, 2);

DROP INDEX ix_readpast_job_archive_queue_id ON readpast_job_archive;
ALTER TABLE readpast_job_archive ALTER COLUMN queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_job_archive ALTER COLUMN type nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_job_archive ALTER COLUMN idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
CREATE INDEX ix_readpast_job_archive_queue_id ON readpast_job_archive (queue, id);

DROP INDEX ix_readpast_job_dead_queue ON readpast_job_dead;
ALTER TABLE readpast_job_dead ALTER COLUMN queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_job_dead ALTER COLUMN type nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL;
ALTER TABLE readpast_job_dead ALTER COLUMN idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;
CREATE INDEX ix_readpast_job_dead_queue ON readpast_job_dead (queue, id);
';
END;

DROP INDEX ix_readpast_job_active ON readpast_job;
CREATE INDEX ix_readpast_job_active ON readpast_job (queue) INCLUDE (status)
WHERE status IN (1, 2);
CREATE INDEX ix_readpast_job_lease_expiry ON readpast_job (lease_expires_at)
WHERE status IN (1, 2);
ALTER TABLE readpast_job_archive ADD CONSTRAINT ck_readpast_job_archive_status CHECK (status IN (3, 5));
ALTER TABLE readpast_job_dead ADD CONSTRAINT ck_readpast_job_dead_status CHECK (status = 4);

IF CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 15
BEGIN
    EXEC sp_executesql N'ALTER INDEX pk_readpast_job ON readpast_job SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);
ALTER INDEX pk_readpast_job_archive ON readpast_job_archive SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);
ALTER INDEX pk_readpast_job_dead ON readpast_job_dead SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);';
END;
