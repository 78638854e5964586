-- The feature timer's one statement while idle: when the next schedule slot is due (schedules
-- not paused), when the next PENDING or WAITING job expires (its expiresAt, or for a WAITING
-- one its enqueue time plus :wait_limit_ms when that is above 0), when the next webhook
-- delivery is due (a PENDING one's next attempt, or a SENDING one's lease expiry), each NULL
-- when there is none, and the database's now. Each is a min over an index
-- (readpast_schedule_due, readpast_job_expiry, readpast_job_waiting, readpast_webhook_due).
-- The timer sleeps until the earliest.
SELECT (SELECT min(s.next_fire_at) FROM readpast_schedule AS s WHERE NOT s.paused) AS next_fire_at,
       (SELECT min(t.at) FROM (
            SELECT min(j.expires_at) AS at FROM readpast_job AS j
            WHERE j.status IN (0, 6, 7) AND j.expires_at IS NOT NULL
            UNION ALL
            SELECT min(w.created_at) + CAST(:wait_limit_ms AS bigint) * interval '1 millisecond' FROM readpast_job AS w
            WHERE w.status = 7 AND CAST(:wait_limit_ms AS bigint) > 0
        ) AS t) AS next_expiry,
       (SELECT min(w.due_at) FROM readpast_webhook AS w WHERE w.status IN (0, 1)) AS next_delivery,
       now() AS db_now
