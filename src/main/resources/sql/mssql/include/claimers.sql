-- The claims merged into this statement (readpast.merging.claims): @claimers is a JSON array of
-- {"n": the claim's index, "worker_id", "lease_seconds" (null: the queue's, else the default),
-- "lo", "hi"}, each claim's slice of the ranked rows (the first claim the best rows, lo+1..hi);
-- @limit is their sum. The claim's write leases every row for the first claim (@worker_id,
-- @lease_seconds); include/claim_slices.sql then gives the others theirs.
DECLARE @claim_slices TABLE (
    n int NOT NULL PRIMARY KEY,
    worker_id nvarchar(200) NOT NULL,
    lease_seconds int NULL,
    lo int NOT NULL,
    hi int NOT NULL
);

INSERT INTO @claim_slices (n, worker_id, lease_seconds, lo, hi)
SELECT
    CAST(JSON_VALUE(s.value, '$.n') AS int),
    CAST(JSON_VALUE(s.value, '$.worker_id') AS nvarchar(200)),
    -- TRY_CONVERT: a JSON null (the queue's lease length) is NULL on SQL Server and the text 'null' on Babelfish
    TRY_CONVERT(int, JSON_VALUE(s.value, '$.lease_seconds')),
    CAST(JSON_VALUE(s.value, '$.lo') AS int),
    CAST(JSON_VALUE(s.value, '$.hi') AS int)
FROM OPENJSON(@claimers) AS s;

DECLARE @worker_id nvarchar(200);
DECLARE @lease_seconds int;

SELECT TOP (1)
    @worker_id = s.worker_id,
    @lease_seconds = s.lease_seconds
FROM @claim_slices AS s
ORDER BY s.lo ASC;
