-- Failures with attempts left, many in one batch and one transaction (POST /jobs/{id}/fail and
-- POST /jobs/fail merged, readpast.merging.acks; the caller's transaction), each exactly as
-- job_retry does for its holder: back to PENDING, due after its delay_ms (stored as 0 when due at
-- once, else 6, scheduled), its error as last_error and appended to errors (the last
-- @keep_errors attempts' errors; include/errors_appended.sql, the one text of that rule). @items
-- is a JSON array of {"id": number, "lease_id": UUID string, "error": text, "delay_ms": number}.
-- The items are parsed into a table variable first (an id or lease id that does not convert
-- matches nothing; an item repeated with the same id and lease id counts once, the first one),
-- then taken one by one in id order, each by job_retry's own text (include/retry_held.sql: the
-- guarded read that locks the row, UPDLOCK, then its update): one row at a time, in one order, so
-- two batches over the same jobs never wait on each other in a cycle. Only rows whose lease is
-- held (and still runs) and whose cancellation was not requested change (the caller settles the
-- others alone). Returns each retried job and retried_lease, the lease it failed under (the
-- job's own lease is cleared).
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @item TABLE (
    k int NOT NULL PRIMARY KEY,
    id bigint NOT NULL,
    lease_id uniqueidentifier NOT NULL,
    error nvarchar(max) NULL,
    delay_ms bigint NOT NULL
);
DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @retried TABLE (id bigint NOT NULL PRIMARY KEY, retried_lease uniqueidentifier NOT NULL);
DECLARE @k int = 0;
DECLARE @next int;
-- what include/retry_held.sql reads: the parameters of job_retry, locals here
DECLARE @id bigint;
DECLARE @lease_id nvarchar(36);
DECLARE @error nvarchar(max);
DECLARE @delay_ms bigint;
DECLARE @expired_only bit = 0;
DECLARE @errors nvarchar(max);
DECLARE @appended_errors nvarchar(max);
DECLARE @error_attempt int;
DECLARE @error_worker nvarchar(200);
DECLARE @found bigint;

INSERT INTO @item (k, id, lease_id, error, delay_ms)
SELECT
    ROW_NUMBER() OVER (ORDER BY x.id ASC, x.lease_id ASC) AS k,
    x.id,
    x.lease_id,
    x.error,
    x.delay_ms
FROM (
    SELECT
        k.id,
        k.lease_id,
        r.error,
        ISNULL(k.delay_ms, 0) AS delay_ms,
        ROW_NUMBER() OVER (
            PARTITION BY k.id, k.lease_id
            ORDER BY CAST(i.[key] AS int)
        ) AS n
    FROM OPENJSON(@items) AS i
    CROSS APPLY (
        SELECT
            TRY_CONVERT(bigint, JSON_VALUE(i.value, '$.id')) AS id,
            TRY_CONVERT(uniqueidentifier, JSON_VALUE(i.value, '$.lease_id')) AS lease_id,
            TRY_CONVERT(bigint, JSON_VALUE(i.value, '$.delay_ms')) AS delay_ms
    ) AS k
    -- the error through OPENJSON: its value column is nvarchar(max) (JSON_VALUE would cut an
    -- error longer than 4000 characters to NULL)
    OUTER APPLY (
        SELECT TOP (1) f.value AS error
        FROM OPENJSON(i.value) AS f
        WHERE f.[key] = N'error'
    ) AS r
) AS x
WHERE x.id IS NOT NULL
    AND x.lease_id IS NOT NULL
    AND x.n = 1;

WHILE 1 = 1
BEGIN
    SET @next = NULL;
    SELECT TOP (1)
        @next = i.k,
        @id = i.id,
        @lease_id = CONVERT(nvarchar(36), i.lease_id),
        @error = i.error,
        @delay_ms = i.delay_ms
    FROM @item AS i
    WHERE i.k > @k
    ORDER BY i.k ASC;
    IF @next IS NULL BREAK;
    SET @k = @next;

    -- include: retry_held.sql

    -- the item's lease, when its job was retried under it
    INSERT INTO @retried (id, retried_lease)
    SELECT
        u.id,
        TRY_CONVERT(uniqueidentifier, @lease_id)
    FROM @updated AS u
    WHERE u.id = @found
        AND NOT EXISTS (SELECT 1 FROM @retried AS r WHERE r.id = u.id);
END;

SELECT
    j.*,
    r.retried_lease
FROM readpast_job AS j
INNER JOIN @retried AS r ON j.id = r.id;
