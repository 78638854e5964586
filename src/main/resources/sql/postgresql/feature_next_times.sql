-- The feature timer's one statement while idle: when the next schedule slot is due (schedules
-- not paused), when the next PENDING job expires, when the next webhook delivery is due (a
-- PENDING one's next attempt, or a SENDING one's lease expiry), each NULL when there is none,
-- and the database's now. Each is a min over an index (readpast_schedule_due,
-- readpast_job_expiry, readpast_webhook_due). The timer sleeps until the earliest.
SELECT (SELECT min(s.next_fire_at) FROM readpast_schedule AS s WHERE NOT s.paused) AS next_fire_at,
       (SELECT min(j.expires_at) FROM readpast_job AS j
        WHERE j.status IN (0, 6) AND j.expires_at IS NOT NULL) AS next_expiry,
       (SELECT min(w.due_at) FROM readpast_webhook AS w WHERE w.status IN (0, 1)) AS next_delivery,
       now() AS db_now
