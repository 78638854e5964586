-- The schedule sweeper's one statement while idle: the earliest next fire time of any schedule
-- that is not paused (NULL: none), and the database's now. It sleeps until then.
SELECT (SELECT min(s.next_fire_at) FROM readpast_schedule AS s WHERE NOT s.paused) AS next_fire_at,
       now() AS db_now
