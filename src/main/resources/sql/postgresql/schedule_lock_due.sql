-- First statement of a firing transaction: lock one due schedule, skipping it when another
-- instance holds it (that one is firing it). Returns the row with the database's now and
-- whether the job of its last fire is still live (PENDING, LEASED or PROCESSING: the hot
-- table holds only those), for the overlap policy. No row: not due, paused, gone or taken.
SELECT s.*,
       now() AS db_now,
       EXISTS (SELECT 1 FROM readpast_job AS j WHERE j.id = s.last_job_id) AS last_job_live
FROM readpast_schedule AS s
WHERE s.name = :name
  AND NOT s.paused
  AND s.next_fire_at <= now()
FOR UPDATE OF s SKIP LOCKED
