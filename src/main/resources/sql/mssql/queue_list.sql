-- Every queue row (inactive ones only when @include_inactive = 1), in name order, with its
-- job counts as in queue_get: pending (due now), scheduled (due later), leased, processing,
-- dead, the due time of its oldest claimable job, and lag_seconds, the age of that job in
-- seconds (float) on the database clock (NULL when none is due). The hot table is read once
-- and counted per queue in one GROUP BY (not one subquery per count and queue), all against
-- one reading of the clock.
-- The counts are telemetry for the dashboard, the gauges and GET /queues: they are read with
-- NOLOCK, so that they never wait behind claims, acks and enqueues in flight with
-- READ_COMMITTED_SNAPSHOT off (a count may include a change not committed yet). Pending counts
-- both stored codes of a due job (0, and 6 whose time has come); scheduled, those still ahead.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @now datetime2(6) = SYSUTCDATETIME();

WITH hot AS (
    SELECT
        j.queue,
        SUM(CASE WHEN j.status IN (0, 6) AND j.due_at <= @now THEN CAST(1 AS bigint) ELSE 0 END) AS pending_count,
        SUM(CASE WHEN j.status IN (0, 6) AND j.due_at > @now THEN CAST(1 AS bigint) ELSE 0 END) AS scheduled_count,
        SUM(CASE WHEN j.status = 1 THEN CAST(1 AS bigint) ELSE 0 END) AS leased_count,
        SUM(CASE WHEN j.status = 2 THEN CAST(1 AS bigint) ELSE 0 END) AS processing_count,
        MIN(CASE WHEN j.status IN (0, 6) AND j.due_at <= @now THEN j.due_at END) AS oldest_due_at
    FROM readpast_job AS j WITH (NOLOCK)
    GROUP BY j.queue
),

dead AS (
    SELECT
        d.queue,
        COUNT_BIG(*) AS dead_count
    FROM readpast_job_dead AS d WITH (NOLOCK)
    GROUP BY d.queue
)

SELECT
    q.*,
    COALESCE(h.pending_count, 0) AS pending_count,
    COALESCE(h.scheduled_count, 0) AS scheduled_count,
    COALESCE(h.leased_count, 0) AS leased_count,
    COALESCE(h.processing_count, 0) AS processing_count,
    COALESCE(x.dead_count, 0) AS dead_count,
    h.oldest_due_at,
    CAST(DATEDIFF_BIG(MILLISECOND, h.oldest_due_at, @now) AS float) / 1000.0 AS lag_seconds
FROM readpast_queue AS q
LEFT JOIN hot AS h ON q.name = h.queue
LEFT JOIN dead AS x ON q.name = x.queue
WHERE
    (q.active = 1 OR @include_inactive = 1)
    AND EXISTS (SELECT 1 FROM readpast_queue_live AS l WHERE l.name = q.name)
ORDER BY q.name ASC;
