-- One queue: its settings and job counts: pending (due now), scheduled (due later), leased,
-- processing, dead, and the due time of its oldest claimable job. Literal status filters so
-- the filtered indexes can serve the counts.
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
    (
        SELECT MIN(j.due_at)
        FROM readpast_job AS j
        WHERE j.queue = q.name AND j.status = 0 AND j.due_at <= SYSUTCDATETIME()
    ) AS oldest_due_at
FROM readpast_queue AS q
WHERE q.name = @name;
