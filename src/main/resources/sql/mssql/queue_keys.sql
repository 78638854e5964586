-- GET /queues/NAME/keys (the dashboard's per-key view of a fair queue): each fairness key of
-- the queue with its pending (due or scheduled) and active (LEASED or PROCESSING) jobs, most
-- pending first, at most @limit keys. A gauge: read with NOLOCK (review M4), never waiting
-- behind traffic.
SET NOCOUNT ON;

SELECT TOP (@limit)
    k.fairness_key,
    CAST(SUM(k.pending) AS bigint) AS pending,
    CAST(SUM(k.active) AS bigint) AS active
FROM (
    SELECT j.fairness_key, COUNT_BIG(*) AS pending, CAST(0 AS bigint) AS active
    FROM readpast_job AS j WITH (NOLOCK)
    WHERE j.queue = @queue
        AND j.status IN (0, 6)
        AND j.fairness_key IS NOT NULL
    GROUP BY j.fairness_key
    UNION ALL
    SELECT a.fairness_key, CAST(0 AS bigint), COUNT_BIG(*)
    FROM readpast_job AS a WITH (NOLOCK)
    WHERE a.queue = @queue
        AND a.status IN (1, 2)
        AND a.fairness_key IS NOT NULL
    GROUP BY a.fairness_key
) AS k
GROUP BY k.fairness_key
ORDER BY SUM(k.pending) DESC, k.fairness_key ASC;
