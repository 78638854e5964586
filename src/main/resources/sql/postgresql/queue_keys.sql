-- GET /queues/NAME/keys (the dashboard's per-key view of a fair queue): each fairness key of
-- the queue with its pending (due or scheduled) and active (LEASED or PROCESSING) jobs, most
-- pending first, at most :limit keys. Reads keyed rows only.
SELECT k.fairness_key, CAST(sum(k.pending) AS bigint) AS pending, CAST(sum(k.active) AS bigint) AS active
FROM (
    SELECT j.fairness_key, count(*) AS pending, 0 AS active
    FROM readpast_job AS j
    WHERE j.queue = :queue AND j.status IN (0, 6) AND j.fairness_key IS NOT NULL
    GROUP BY j.fairness_key
    UNION ALL
    SELECT a.fairness_key, 0, count(*)
    FROM readpast_job AS a
    WHERE a.queue = :queue AND a.status IN (1, 2) AND a.fairness_key IS NOT NULL
    GROUP BY a.fairness_key
) AS k
GROUP BY k.fairness_key
ORDER BY sum(k.pending) DESC, k.fairness_key
LIMIT :limit
