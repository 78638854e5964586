-- A cancelled batch's jobs at work (LEASED, PROCESSING) get cancel requested: their workers
-- see it on the next heartbeat, and the job ends CANCELLED when they give it up. The rows are
-- reached by a seek of the batch index (the literal "batch_id IS NOT NULL" matches its filter)
-- and waited for when a claim or an ack holds them (no READPAST). No result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

UPDATE j
SET
    j.cancel_requested = 1,
    j.modified_by = COALESCE(@modified_by, j.modified_by),
    j.updated_at = SYSUTCDATETIME()
FROM readpast_job AS j WITH (ROWLOCK, INDEX (ix_readpast_job_batch), FORCESEEK)
WHERE j.batch_id = @id
    AND j.batch_id IS NOT NULL
    AND j.status IN (1, 2)
    AND j.cancel_requested = 0;
