-- The jobs of batch :id that nobody holds (PENDING, scheduled or WAITING): a cancel's targets.
SELECT j.id FROM readpast_job AS j WHERE j.batch_id = :id AND j.status IN (0, 6, 7)
