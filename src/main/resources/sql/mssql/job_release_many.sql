-- Gives many jobs back unworked in one batch (POST /jobs/release, and single releases merged,
-- readpast.merging.acks), each as job_release does: PENDING again, the attempt the claim counted
-- given back, its place in line kept (due_at unchanged); with a delay_ms > 0 due that long from
-- now instead (stored as 6, scheduled). @items is a JSON array of {"id": number, "lease_id":
-- UUID string, "delay_ms": number}. The items are parsed into a table variable first; an id or
-- lease id that does not convert matches nothing, and an item repeated with the same id and
-- lease id counts once (the first one). Only rows whose lease is held and whose cancellation was
-- not requested change (the caller cancels those instead), through primary-key seeks (FORCESEEK),
-- each row locked as it is updated (ROWLOCK): the worker holds these leases, so no claim is
-- waiting on them. The SET list reads the items through subqueries, not a joined table (as
-- job_heartbeat_many: Babelfish loses the joined table of an UPDATE ... FROM ... OUTPUT INTO in
-- the SET list). Returns each released job and released_lease, the lease it was released from
-- (the job's own lease is cleared). Not run on Babelfish, where acks are not merged
-- (JobStore.mergesAcks), and whose OUTPUT deleted.lease_id answers the new value (NULL).
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @item TABLE (
    id bigint NOT NULL,
    lease_id uniqueidentifier NOT NULL,
    delay_ms bigint NOT NULL,
    PRIMARY KEY (id, lease_id)
);
DECLARE @updated TABLE (
    id bigint NOT NULL PRIMARY KEY,
    released_lease uniqueidentifier NOT NULL
);

INSERT INTO @item (id, lease_id, delay_ms)
SELECT
    x.id,
    x.lease_id,
    x.delay_ms
FROM (
    SELECT
        k.id,
        k.lease_id,
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
) AS x
WHERE x.id IS NOT NULL
    AND x.lease_id IS NOT NULL
    AND x.n = 1;

UPDATE j
SET
    status = CASE
        WHEN (SELECT i.delay_ms FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id) > 0 THEN 6
        ELSE 0
    END,
    due_at = CASE
        -- delay_ms is bigint: seconds and milliseconds apart, since DATEADD takes an int
        WHEN (SELECT i.delay_ms FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id) > 0
            THEN DATEADD(
                SECOND,
                CAST((SELECT i.delay_ms FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id) / 1000 AS int),
                DATEADD(
                    MILLISECOND,
                    CAST((SELECT i.delay_ms FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id) % 1000 AS int),
                    SYSUTCDATETIME()
                )
            )
        ELSE j.due_at
    END,
    attempt = CASE WHEN j.attempt > 0 THEN j.attempt - 1 ELSE 0 END,
    worker_id = NULL,
    lease_id = NULL,
    lease_seconds = NULL,
    lease_expires_at = NULL,
    heartbeat_at = NULL,
    modified_by = COALESCE(@modified_by, j.modified_by),
    updated_at = SYSUTCDATETIME()
OUTPUT inserted.id, deleted.lease_id INTO @updated (id, released_lease)
FROM readpast_job AS j WITH (ROWLOCK, FORCESEEK)
WHERE j.status IN (1, 2)
    -- the lease still runs (database clock): an expired one is lost, swept or not
    AND j.lease_expires_at > SYSUTCDATETIME()
    AND j.cancel_requested = 0
    AND EXISTS (SELECT 1 FROM @item AS i WHERE i.id = j.id AND i.lease_id = j.lease_id);

SELECT
    j.*,
    u.released_lease
FROM readpast_job AS j
INNER JOIN @updated AS u ON j.id = u.id;
