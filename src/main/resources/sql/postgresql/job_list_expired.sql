-- Leases past their expiry (database clock), with what the failure path needs, at most :limit,
-- oldest first; and, on every row, next_expiry (the earliest lease that has not expired yet, so
-- that the sweeper can sleep until then) and db_now. When no lease has expired the answer is one
-- row with NULL job columns. Reads the small leased/processing set only.
SELECT h.next_expiry, h.db_now, e.*
FROM (
    SELECT min(a.lease_expires_at) FILTER (WHERE a.lease_expires_at > now()) AS next_expiry, now() AS db_now
    FROM readpast_job AS a
    WHERE a.status IN (1, 2)
) AS h
LEFT JOIN LATERAL (
    SELECT j.id, j.lease_id, j.attempt, j.max_attempts, j.queue, j.worker_id, j.cancel_requested,
           q.backoff_base_ms, q.backoff_cap_ms, j.lease_expires_at, j.timeout_seconds, j.deadline_at,
           j.retry_policy
    FROM readpast_job AS j
    LEFT JOIN readpast_queue AS q ON q.name = j.queue
    WHERE j.status IN (1, 2)
      AND j.lease_expires_at <= now()
    ORDER BY j.lease_expires_at
    LIMIT :limit
) AS e ON true
