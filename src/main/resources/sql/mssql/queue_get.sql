-- One queue: its settings and job counts: pending (due now), scheduled (due later), leased,
-- processing, dead, the due time of its oldest claimable job, and lag_seconds, the age of
-- that job in seconds (float) on the database clock (NULL when none is due). Literal status
-- filters so the filtered indexes can serve the counts.
SET NOCOUNT ON;
SET XACT_ABORT ON;

SELECT
    q.*,
    (
        SELECT COUNT_BIG(*)
        FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 0 AND j.due_at <= SYSUTCDATETIME()
    ) AS pending_count,
    (
        SELECT COUNT_BIG(*)
        FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 0 AND j.due_at > SYSUTCDATETIME()
    ) AS scheduled_count,
    (
        SELECT COUNT_BIG(*)
        FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 1
    ) AS leased_count,
    (
        SELECT COUNT_BIG(*)
        FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 2
    ) AS processing_count,
    (
        SELECT COUNT_BIG(*)
        FROM readpast_job_dead AS d
        WHERE d.queue = q.name
    ) AS dead_count,
    o.oldest_due_at,
    CAST(DATEDIFF_BIG(MILLISECOND, o.oldest_due_at, SYSUTCDATETIME()) AS float)
    / 1000.0 AS lag_seconds
FROM readpast_queue AS q
CROSS APPLY (
    SELECT MIN(j.due_at) AS oldest_due_at
    FROM readpast_job AS j
    WHERE j.queue = q.name AND j.status = 0 AND j.due_at <= SYSUTCDATETIME()
) AS o
WHERE q.name = @name;
