-- The hot table's autovacuum runs unthrottled. Every claim and acknowledgement leaves a dead row
-- version in readpast_job, and claims read the claim index from its head, where those versions
-- gather until a VACUUM removes them. Throttled by the default cost delay (2 ms), autovacuum of
-- a busy hot table crawled for over 10 s while claims grew from milliseconds to seconds
-- (bench/results/round4-levers.md); unthrottled, the same sustained load ran 17% faster on
-- average and steadier (4 runs each). The table is small, so an unthrottled pass is short. Other
-- tables keep the server's settings.
ALTER TABLE readpast_job SET (autovacuum_vacuum_cost_delay = 0);
