-- The feature timer's one statement while idle: when the next schedule slot is due (schedules
-- not paused), when the next PENDING or WAITING job expires (its expiresAt, or for a WAITING
-- one its enqueue time plus @wait_limit_ms when that is above 0), when the next webhook
-- delivery is due (a PENDING one's next attempt, or a SENDING one's lease expiry), each NULL
-- when there is none, and the database's now. Each is a MIN over a filtered index
-- (ix_readpast_schedule_due, ix_readpast_job_expiry, ix_readpast_job_waiting,
-- ix_readpast_webhook_due; literal filters). A wait limit of ten years or more is not added
-- (DATEADD takes an int, and no timer needs to look that far ahead). Plain reads: a row
-- changing right now changes nothing here. The timer sleeps until the earliest.
SET NOCOUNT ON;

SELECT
    (
        SELECT MIN(s.next_fire_at)
        FROM readpast_schedule AS s
        WHERE s.paused = 0
    ) AS next_fire_at,
    (
        SELECT MIN(t.at)
        FROM (
            SELECT MIN(j.expires_at) AS at
            FROM readpast_job AS j
            WHERE j.status IN (0, 6, 7) AND j.expires_at IS NOT NULL
            UNION ALL
            SELECT
                DATEADD(
                    MILLISECOND,
                    CAST(@wait_limit_ms % 86400000 AS int),
                    DATEADD(DAY, CAST(@wait_limit_ms / 86400000 AS int), MIN(w.created_at))
                ) AS at
            FROM readpast_job AS w
            WHERE w.status = 7 AND @wait_limit_ms > 0 AND @wait_limit_ms < 315360000000
        ) AS t
    ) AS next_expiry,
    (
        SELECT MIN(w.due_at)
        FROM readpast_webhook AS w
        WHERE w.status IN (0, 1)
    ) AS next_delivery,
    SYSUTCDATETIME() AS db_now;
