-- Scheduled rows (status 6) of the queues in @eligible whose due time has come become pending
-- (0), up to @limit, oldest due first, skipping rows others hold (include/claim.sql and
-- job_claim_fair, before they claim: what they claim next sees them).
UPDATE s
SET s.status = 0
FROM readpast_job AS s WITH (ROWLOCK, READPAST, FORCESEEK)
INNER JOIN (
    SELECT TOP (@limit) d.id
    FROM @eligible AS e
    CROSS APPLY (
        SELECT TOP (@limit)
            x.id,
            x.due_at
        FROM readpast_job AS x WITH (
            UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_scheduled), FORCESEEK
        )
        WHERE x.queue = e.name
            AND x.status = 6
            AND x.due_at <= SYSUTCDATETIME()
        ORDER BY x.due_at ASC, x.id ASC
    ) AS d
    ORDER BY d.due_at ASC, d.id ASC
) AS p ON s.id = p.id
WHERE s.status = 6;
