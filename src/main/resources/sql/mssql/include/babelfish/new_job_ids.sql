-- Babelfish only (SqlServerDialect.BABELFISH): it has no NEXT VALUE FOR ... OVER, so the ids
-- come from the sequence through a table variable's column default, one per item; the caller
-- hands them out in item order (the k-th smallest id to the k-th item).
DECLARE @new_id TABLE (
    n int NOT NULL PRIMARY KEY,
    id bigint NOT NULL DEFAULT (NEXT VALUE FOR readpast_job_id)
);
INSERT INTO @new_id (n)
SELECT i.ord
FROM @item AS i;
