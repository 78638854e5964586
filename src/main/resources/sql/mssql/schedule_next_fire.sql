-- The schedule sweeper's one statement while idle: the earliest next fire time of any schedule
-- that is not paused (NULL: none), and the database's now. It sleeps until then. A plain read
-- (the filtered index ix_readpast_schedule_due serves it).
SET NOCOUNT ON;

SELECT
    (
        SELECT MIN(s.next_fire_at)
        FROM readpast_schedule AS s
        WHERE s.paused = 0
    ) AS next_fire_at,
    SYSUTCDATETIME() AS db_now;
