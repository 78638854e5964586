-- After firing: the next slot to handle, and the last slot handled and job enqueued (NULL
-- keeps the previous value). Runs in the transaction that holds the schedule's row lock.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @advanced TABLE (name nvarchar(100) NOT NULL);

UPDATE readpast_schedule WITH (ROWLOCK)
SET
    next_fire_at = @next_fire_at,
    last_fire_at = COALESCE(@last_fire_at, last_fire_at),
    last_job_id = COALESCE(@last_job_id, last_job_id)
OUTPUT inserted.name INTO @advanced (name)
WHERE name = @name;

SELECT a.name
FROM @advanced AS a;
