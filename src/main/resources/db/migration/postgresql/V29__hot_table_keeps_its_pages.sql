-- VACUUM of the hot table no longer gives its empty tail back to the file system. A queue's table
-- fills and empties all day: after nearly every VACUUM its last pages were empty, and VACUUM
-- truncated them, which takes an ACCESS EXCLUSIVE lock on readpast_job for the WAL flush and the
-- file truncation: every claim, acknowledgement and enqueue waits behind it. Sampled under the
-- sustained load of bench/run (bench/results/round5-levers.md, stop 52), the broker's VACUUM and
-- autovacuum of readpast_job were seen waiting for that lock (VacuumTruncate), truncating
-- (DataFileTruncate) and flushing WAL for seconds, and the next inserts grew the file again. Kept,
-- the pages are reused by the next inserts. (PostgreSQL 12 and later; the numbers V27 and V28 are
-- SQL Server's.)
ALTER TABLE readpast_job SET (vacuum_truncate = false);
