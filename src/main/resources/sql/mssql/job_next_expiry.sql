-- The expiry sweeper's one statement while idle: the earliest expiresAt of a PENDING job
-- (NULL: none; read from the filtered expiry index, literal filter), and the database's now.
-- It sleeps until then. A plain read: a row being claimed right now changes nothing here.
SET NOCOUNT ON;

SELECT
    (
        SELECT MIN(j.expires_at)
        FROM readpast_job AS j
        WHERE j.status = 0 AND j.expires_at IS NOT NULL
    ) AS next_expiry,
    SYSUTCDATETIME() AS db_now;
