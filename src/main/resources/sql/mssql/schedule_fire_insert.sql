-- Records a slot as handled; the primary key (schedule, slot) refuses a second record, so
-- a slot fires at most once whatever the number of instances. The existence check runs under
-- UPDLOCK, HOLDLOCK (a key-range lock held to the end of the transaction); the primary key
-- stays the backstop (2627). Returns the slot when this call recorded it, nothing when it
-- was recorded before.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @recorded TABLE (slot_at datetime2(6) NOT NULL);

INSERT INTO readpast_schedule_fire (schedule_name, slot_at, outcome)
OUTPUT inserted.slot_at INTO @recorded (slot_at)
SELECT
    @schedule_name,
    @slot_at,
    @outcome
WHERE NOT EXISTS (
    SELECT 1
    FROM readpast_schedule_fire AS f WITH (UPDLOCK, HOLDLOCK)
    WHERE f.schedule_name = @schedule_name
        AND f.slot_at = @slot_at
);

SELECT r.slot_at
FROM @recorded AS r;
