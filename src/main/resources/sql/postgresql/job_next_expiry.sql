-- The expiry sweeper's one statement while idle: the earliest expiresAt of a PENDING job
-- (NULL: none; read from the expiry index), and the database's now. It sleeps until then.
SELECT (SELECT min(j.expires_at) FROM readpast_job AS j
        WHERE j.status = 0 AND j.expires_at IS NOT NULL) AS next_expiry,
       now() AS db_now
