-- Babelfish only (SqlServerDialect.BABELFISH): it has no NEXT VALUE FOR in procedural
-- statements, so when @group_key is not NULL, @group_seq comes from the sequence through a
-- table variable's column default, a form SQL Server itself does not document.
DECLARE @next_group_seq TABLE (
    n int NOT NULL PRIMARY KEY,
    v bigint NOT NULL DEFAULT (NEXT VALUE FOR readpast_job_group_seq)
);
IF @group_key IS NOT NULL
BEGIN
    INSERT INTO @next_group_seq (n) VALUES (1);
    SELECT @group_seq = g.v FROM @next_group_seq AS g;
END;
