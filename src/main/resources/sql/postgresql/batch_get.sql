-- A batch with what its jobs in the hot table are doing now (the finished ones are its counts).
SELECT b.*,
       (SELECT count(*) FROM readpast_job AS j WHERE j.batch_id = b.id AND j.status = 7) AS waiting_count,
       (SELECT count(*) FROM readpast_job AS j WHERE j.batch_id = b.id AND j.status IN (0, 6)) AS pending_count,
       (SELECT count(*) FROM readpast_job AS j WHERE j.batch_id = b.id AND j.status IN (1, 2)) AS active_count
FROM readpast_batch AS b
WHERE b.id = :id
