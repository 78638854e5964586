-- Deletes a schedule and the record of its fired slots (jobs it enqueued stay). The deleted
-- name goes OUTPUT ... INTO a table variable (never a bare OUTPUT) and is read back.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @deleted TABLE (name nvarchar(100) NOT NULL);

-- the schedule row first, as the firer locks it (schedule_lock_due) before it writes fire
-- records: one lock order, so a delete and a firing of the same schedule never deadlock
DELETE FROM readpast_schedule
OUTPUT deleted.name INTO @deleted (name)
WHERE name = @name;

DELETE FROM readpast_schedule_fire
WHERE schedule_name = @name;

SELECT d.name
FROM @deleted AS d;
