-- A template (StatementCatalog): the slot "scope" is the condition on the queue row q that puts a
-- queue in the claim's scope. Scheduled rows (status 6) of those queues (not paused, active)
-- whose due time has come become pending (0), up to @limit, oldest due first, skipping rows
-- others hold; queue rows are read with READPAST (one being written is left for the next
-- claim). Part of include/claim_prelude.sql, which commits it before the claim begins.
UPDATE s
SET s.status = 0
FROM readpast_job AS s WITH (ROWLOCK, READPAST, FORCESEEK)
INNER JOIN (
    SELECT TOP (@limit) d.id
    FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
    CROSS APPLY (
        SELECT TOP (@limit)
            x.id,
            x.due_at
        FROM readpast_job AS x WITH (
            UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_scheduled), FORCESEEK
        )
        WHERE x.queue = q.name
            AND x.status = 6
            AND x.due_at <= SYSUTCDATETIME()
        ORDER BY x.due_at ASC, x.id ASC
    ) AS d
    WHERE q.paused = 0
        AND q.active = 1
        AND ({{scope}})
    ORDER BY d.due_at ASC, d.id ASC
) AS p ON s.id = p.id
WHERE s.status = 6;
