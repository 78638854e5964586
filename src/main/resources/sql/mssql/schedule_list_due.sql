-- The schedules with a slot due now (database clock), most overdue first. Takes no lock
-- (READPAST with ROWLOCK skips schedules another instance holds): the sweeper locks each
-- one with schedule_lock_due before firing it.
SET NOCOUNT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT TOP (@limit) s.name
FROM readpast_schedule AS s WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
WHERE s.paused = 0
    AND s.next_fire_at <= SYSUTCDATETIME()
ORDER BY s.next_fire_at ASC;
