-- The webhook sender's claim: up to @limit due deliveries (PENDING whose next attempt is due,
-- or SENDING whose lease expired: that sender died mid-send) become SENDING under a fresh
-- lease of @lease_seconds, attempt counted. Rows another sender holds are skipped, not waited
-- for (UPDLOCK, READPAST, ROWLOCK under READ COMMITTED; READCOMMITTEDLOCK so that RCSI row
-- versions do not hide a claim in flight); the filtered index ix_readpast_webhook_due is
-- sought in due order (literal status filter). The claimed rows go OUTPUT ... INTO a table
-- variable (never a bare OUTPUT) and are read back as the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @claimed TABLE (id bigint NOT NULL PRIMARY KEY);

UPDATE w
SET
    w.status = 1,
    w.attempt = w.attempt + 1,
    w.lease_id = NEWID(),
    w.due_at = DATEADD(SECOND, @lease_seconds, SYSUTCDATETIME()),
    w.updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @claimed (id)
FROM readpast_webhook AS w WITH (ROWLOCK)
INNER JOIN (
    -- a derived table, not WITH (Babelfish overflows its stack on some WITH ... UPDATE ...
    -- OUTPUT INTO statements)
    SELECT TOP (@limit) d.id
    FROM readpast_webhook AS d WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE d.status IN (0, 1)
        AND d.due_at <= SYSUTCDATETIME()
    ORDER BY d.due_at ASC, d.id ASC
) AS p ON w.id = p.id
-- re-checked at the update: a delivery another sender leased meanwhile is not leased twice
WHERE w.status IN (0, 1)
    AND w.due_at <= SYSUTCDATETIME();

SELECT w.*
FROM readpast_webhook AS w
INNER JOIN @claimed AS c ON w.id = c.id
ORDER BY w.due_at ASC, w.id ASC;
