-- Writes a batch's counts and state as the caller decided them under batch_lock's row lock.
-- The times come from the database clock: @close (a bit) sets closed_at, @finish finished_at,
-- @fire fired_at, @cancel cancelled_at, each once; @reopen clears finished_at (a requeued job
-- of the batch counts again: the batch is not finished until that job finishes again;
-- fired_at stays, a batch fires once); @callback_job_id (NULL: unchanged) the
-- callback job enqueued when it fired. The updated id goes OUTPUT ... INTO a table variable,
-- and the row is read back as the one result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);

UPDATE b
SET
    b.total = @total,
    b.succeeded = @succeeded,
    b.dead = @dead,
    b.cancelled = @cancelled,
    b.queues = @queues,
    b.closed = CASE WHEN @close = 1 THEN 1 ELSE b.closed END,
    b.closed_at = CASE WHEN b.closed_at IS NULL AND @close = 1 THEN SYSUTCDATETIME() ELSE b.closed_at END,
    b.finished_at = CASE
        WHEN @reopen = 1 THEN NULL
        WHEN b.finished_at IS NULL AND @finish = 1 THEN SYSUTCDATETIME()
        ELSE b.finished_at
    END,
    b.fired_at = CASE WHEN b.fired_at IS NULL AND @fire = 1 THEN SYSUTCDATETIME() ELSE b.fired_at END,
    b.cancelled_at = CASE WHEN b.cancelled_at IS NULL AND @cancel = 1 THEN SYSUTCDATETIME() ELSE b.cancelled_at END,
    b.callback_job_id = COALESCE(@callback_job_id, b.callback_job_id),
    b.updated_at = SYSUTCDATETIME()
OUTPUT inserted.id INTO @updated (id)
FROM readpast_batch AS b WITH (ROWLOCK)
WHERE b.id = @id;

SELECT b.*
FROM readpast_batch AS b
INNER JOIN @updated AS u ON b.id = u.id;
