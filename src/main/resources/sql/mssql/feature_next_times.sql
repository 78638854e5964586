-- The feature timer's one statement while idle: when the next schedule slot is due (schedules
-- not paused), when the next PENDING job expires, when the next webhook delivery is due (a
-- PENDING one's next attempt, or a SENDING one's lease expiry), each NULL when there is none,
-- and the database's now. Each is a MIN over a filtered index (ix_readpast_schedule_due,
-- ix_readpast_job_expiry, ix_readpast_webhook_due; literal filters). Plain reads: a row
-- changing right now changes nothing here. The timer sleeps until the earliest.
SET NOCOUNT ON;

SELECT
    (
        SELECT MIN(s.next_fire_at)
        FROM readpast_schedule AS s
        WHERE s.paused = 0
    ) AS next_fire_at,
    (
        SELECT MIN(j.expires_at)
        FROM readpast_job AS j
        WHERE j.status IN (0, 6) AND j.expires_at IS NOT NULL
    ) AS next_expiry,
    (
        SELECT MIN(w.due_at)
        FROM readpast_webhook AS w
        WHERE w.status IN (0, 1)
    ) AS next_delivery,
    SYSUTCDATETIME() AS db_now;
