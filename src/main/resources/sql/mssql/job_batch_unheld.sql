-- The jobs of batch @id that nobody holds (PENDING, scheduled or WAITING): a cancel's targets
-- (job_cancel_many checks each again under its lock). A plain read of the batch index (the
-- literal "batch_id IS NOT NULL" matches its filter).
SET NOCOUNT ON;

SELECT j.id
FROM readpast_job AS j
WHERE j.batch_id = @id
    AND j.batch_id IS NOT NULL
    AND j.status IN (0, 6, 7);
