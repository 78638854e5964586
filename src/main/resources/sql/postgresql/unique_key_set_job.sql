-- The job a uniqueness key stands for (set in the transaction that took the key).
UPDATE readpast_unique_key
SET job_id = :job_id
WHERE unique_key = :unique_key
RETURNING unique_key
