-- Babelfish only (SqlServerDialect.BABELFISH): batch_lock's read as a write, because Babelfish
-- ignores UPDLOCK: a locking read there locks nothing, two settlements of one batch would both
-- read the same counts and the second write would undo the first's (found by
-- BatchTest.aBatchsJobsCompletedOneByOneAtOnceSettleItExactly: 170 of 200 counted). An UPDATE
-- that changes nothing takes a real row lock, held to the end of the transaction, which the
-- next settlement of the batch waits for; the read after it sees what that one committed.
UPDATE readpast_batch
SET closed = closed
WHERE id = @id;

SELECT b.*
FROM readpast_batch AS b
WHERE b.id = @id;
