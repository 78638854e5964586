-- The job a fired slot enqueued.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @updated TABLE (slot_at datetime2(6) NOT NULL);

UPDATE readpast_schedule_fire WITH (ROWLOCK)
SET job_id = @job_id
OUTPUT inserted.slot_at INTO @updated (slot_at)
WHERE schedule_name = @schedule_name
    AND slot_at = @slot_at;

SELECT u.slot_at
FROM @updated AS u;
