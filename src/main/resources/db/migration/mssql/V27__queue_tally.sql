-- Review round 2, N1 (docs/sqlserver.md): what claims change per claim leaves the queue row.
-- A fair queue's cursor (the key served last) and a rate-limited queue's window count were
-- columns of readpast_queue, so a claim held its queue row with an exclusive lock to its end
-- and then waited for job rows, while an acknowledgement held its job rows and then read the
-- queue row (its webhook URL): the two could deadlock under READ_COMMITTED_SNAPSHOT OFF. They
-- live here now, one row per queue, written by claims last (under the queue row's update lock
-- that queue_lock_capped takes, or skipping a row another claim holds), created by the queue's
-- settings write (queue_upsert, before it locks the queue row) and reset by queue_delete.
-- Claims then hold queue rows with update locks only, which plain reads do not wait for.
-- No foreign key: a queue row is never deleted (DELETE /queues makes it a tombstone), and a key
-- check would lock the queue row again from the claim.
CREATE TABLE readpast_queue_tally (
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    fair_cursor nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
    rate_window bigint NULL,
    rate_window_count int NOT NULL CONSTRAINT df_readpast_queue_tally_count DEFAULT (0),
    CONSTRAINT pk_readpast_queue_tally PRIMARY KEY (queue)
);

INSERT INTO readpast_queue_tally (queue, fair_cursor, rate_window, rate_window_count)
SELECT q.name, q.fair_cursor, q.rate_window, q.rate_window_count
FROM readpast_queue AS q;

-- the old columns go (a metadata change: no rewrite of the table); the count's default first,
-- by the name V12 gave it (Babelfish names default constraints itself, and drops them with
-- their column)
IF OBJECT_ID(N'df_readpast_queue_rate_count', N'D') IS NOT NULL
BEGIN
    ALTER TABLE readpast_queue DROP CONSTRAINT df_readpast_queue_rate_count;
END;
ALTER TABLE readpast_queue DROP COLUMN rate_window;
ALTER TABLE readpast_queue DROP COLUMN rate_window_count;
ALTER TABLE readpast_queue DROP COLUMN fair_cursor;
