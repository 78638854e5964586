-- The webhook sender's claim: up to @limit due deliveries (PENDING whose next attempt is due,
-- or SENDING whose lease expired: that sender died mid-send) become SENDING under a fresh
-- lease of @lease_seconds, attempt counted. Rows another sender holds are skipped, not waited
-- for (UPDLOCK, READPAST, ROWLOCK under READ COMMITTED; READCOMMITTEDLOCK so that RCSI row
-- versions do not hide a claim in flight); the filtered index ix_readpast_webhook_due is
-- sought in due order (literal status filter, INDEX with FORCESEEK). The UPDATE target is
-- reached by seek on those rows (ROWLOCK, READPAST, FORCESEEK), never scanned. The claimed rows
-- go OUTPUT ... INTO a table variable (never a bare OUTPUT), which is the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @claimed TABLE (
    id bigint NOT NULL PRIMARY KEY,
    delivery_id uniqueidentifier NOT NULL,
    job_id bigint NOT NULL,
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    event nvarchar(20) NOT NULL,
    url nvarchar(2000) NOT NULL,
    status tinyint NOT NULL,
    attempt int NOT NULL,
    due_at datetime2(6) NOT NULL,
    lease_id uniqueidentifier NULL,
    last_status int NULL,
    last_error nvarchar(max) NULL,
    created_at datetime2(6) NOT NULL,
    updated_at datetime2(6) NOT NULL,
    delivered_at datetime2(6) NULL
);

UPDATE w
SET
    w.status = 1,
    w.attempt = w.attempt + 1,
    w.lease_id = NEWID(),
    w.due_at = DATEADD(SECOND, @lease_seconds, SYSUTCDATETIME()),
    w.updated_at = SYSUTCDATETIME()
OUTPUT
    inserted.id, inserted.delivery_id, inserted.job_id, inserted.queue, inserted.event, inserted.url,
    inserted.status, inserted.attempt, inserted.due_at, inserted.lease_id, inserted.last_status,
    inserted.last_error, inserted.created_at, inserted.updated_at, inserted.delivered_at
INTO @claimed (
    id, delivery_id, job_id, queue, event, url,
    status, attempt, due_at, lease_id, last_status,
    last_error, created_at, updated_at, delivered_at
)
FROM readpast_webhook AS w WITH (ROWLOCK, READPAST, FORCESEEK)
INNER JOIN (
    -- a derived table, not WITH (Babelfish overflows its stack on some WITH ... UPDATE ...
    -- OUTPUT INTO statements)
    SELECT TOP (@limit) d.id
    FROM readpast_webhook AS d WITH (
        UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_webhook_due), FORCESEEK
    )
    WHERE d.status IN (0, 1)
        AND d.due_at <= SYSUTCDATETIME()
    ORDER BY d.due_at ASC, d.id ASC
) AS p ON w.id = p.id
-- re-checked at the update: a delivery another sender leased meanwhile is not leased twice
WHERE w.status IN (0, 1)
    AND w.due_at <= SYSUTCDATETIME();

SELECT c.*
FROM @claimed AS c
ORDER BY c.due_at ASC, c.id ASC;
