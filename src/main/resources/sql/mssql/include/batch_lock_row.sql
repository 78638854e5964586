-- batch_lock's read: the batch row, locked to the end of the transaction (UPDLOCK; Babelfish,
-- which ignores the hint, has its own form in include/babelfish/).
SELECT b.*
FROM readpast_batch AS b WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK)
WHERE b.id = @id;
