-- The live job holding an idempotency key, if any (at most one: unique filtered index).
-- The literal IS NOT NULL lets that filtered index serve the seek.
SET NOCOUNT ON;
SET XACT_ABORT ON;

SELECT j.*
FROM readpast_job AS j
WHERE j.idempotency_key = @idempotency_key
    AND j.idempotency_key IS NOT NULL;
