-- The live job holding an idempotency key, if any.
SELECT * FROM readpast_job WHERE idempotency_key = :idempotency_key
