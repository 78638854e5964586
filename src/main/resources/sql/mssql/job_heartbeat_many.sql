-- Extends many leases in one batch (POST /jobs/heartbeat), each as job_heartbeat does: the
-- first heartbeat moves LEASED to PROCESSING. @items is a JSON array of {"id": number,
-- "lease_id": UUID string, "lease_seconds": integer or null (keep the current length),
-- "progress": a JSON object or null (keep the previous one)}. The items are parsed into a table
-- variable first (progress through OPENJSON, whose value for an object is its JSON text as
-- written, also on Babelfish, and nvarchar(max): JSON_VALUE would cut
-- a long one to NULL); an id or lease id that does not convert matches nothing, and an item
-- repeated with the same id and lease id counts once (the first one). The held rows are
-- updated through primary-key seeks (FORCESEEK), each row locked as it is updated (ROWLOCK):
-- the worker holds these leases, so no claim is waiting on them. The SET list reads the items
-- through subqueries, not a joined table (Babelfish loses the joined table of an UPDATE ...
-- FROM ... OUTPUT INTO in the SET list, as include/claim.sql notes); ISNULL evaluates each
-- once. Returns id, lease_id, lease_expires_at and cancel_requested of each extended lease.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @item TABLE (
    id bigint NOT NULL,
    lease_id uniqueidentifier NOT NULL,
    lease_seconds int NULL,
    progress nvarchar(max) NULL,
    PRIMARY KEY (id, lease_id)
);
DECLARE @updated TABLE (
    id bigint NOT NULL PRIMARY KEY,
    lease_id uniqueidentifier NOT NULL,
    lease_expires_at datetime2(6) NOT NULL,
    cancel_requested bit NOT NULL
);

INSERT INTO @item (id, lease_id, lease_seconds, progress)
SELECT
    x.id,
    x.lease_id,
    x.lease_seconds,
    x.progress
FROM (
    SELECT
        k.id,
        k.lease_id,
        k.lease_seconds,
        p.progress,
        ROW_NUMBER() OVER (
            PARTITION BY k.id, k.lease_id
            ORDER BY CAST(i.[key] AS int)
        ) AS n
    FROM OPENJSON(@items) AS i
    CROSS APPLY (
        SELECT
            TRY_CONVERT(bigint, JSON_VALUE(i.value, '$.id')) AS id,
            TRY_CONVERT(uniqueidentifier, JSON_VALUE(i.value, '$.lease_id')) AS lease_id,
            TRY_CONVERT(int, JSON_VALUE(i.value, '$.lease_seconds')) AS lease_seconds
    ) AS k
    OUTER APPLY (
        SELECT TOP (1) f.value AS progress
        FROM OPENJSON(i.value) AS f
        WHERE f.[key] = N'progress' AND f.type <> 0
    ) AS p
) AS x
WHERE x.id IS NOT NULL
    AND x.lease_id IS NOT NULL
    AND x.n = 1;

UPDATE j
SET
    status = 2,
    started_at = COALESCE(j.started_at, SYSUTCDATETIME()),
    heartbeat_at = SYSUTCDATETIME(),
    lease_seconds = ISNULL(
        (SELECT i.lease_seconds FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id), j.lease_seconds
    ),
    -- never past the job's deadline (timeoutSeconds, set by the claim)
    lease_expires_at = CASE
        WHEN j.deadline_at < DATEADD(
            SECOND,
            ISNULL((SELECT i.lease_seconds FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id), j.lease_seconds),
            SYSUTCDATETIME()
        ) THEN j.deadline_at
        ELSE DATEADD(
            SECOND,
            ISNULL((SELECT i.lease_seconds FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id), j.lease_seconds),
            SYSUTCDATETIME()
        )
    END,
    progress = ISNULL((SELECT i.progress FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id), j.progress),
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id, inserted.lease_id, inserted.lease_expires_at, inserted.cancel_requested
INTO @updated (id, lease_id, lease_expires_at, cancel_requested)
FROM readpast_job AS j WITH (ROWLOCK, FORCESEEK)
WHERE j.status IN (1, 2)
    -- the lease still runs (database clock): an expired one is lost, swept or not
    AND j.lease_expires_at > SYSUTCDATETIME()
    AND EXISTS (SELECT 1 FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id);

SELECT
    u.id,
    u.lease_id,
    u.lease_expires_at,
    u.cancel_requested
FROM @updated AS u;
