-- The schedules with a slot due now (database clock), most overdue first. Takes no lock: the
-- sweeper locks each one with schedule_lock_due before firing it.
SELECT s.name
FROM readpast_schedule AS s
WHERE NOT s.paused
  AND s.next_fire_at <= now()
ORDER BY s.next_fire_at
LIMIT :limit
