-- A batch with what its jobs in the hot table are doing now (the finished ones are its
-- counts): WAITING (7), PENDING (0, and 6 scheduled), at work (1 LEASED, 2 PROCESSING). One
-- seek of the batch index (the literal "batch_id IS NOT NULL" matches its filter). Plain reads.
SET NOCOUNT ON;

SELECT
    b.*,
    c.waiting_count,
    c.pending_count,
    c.active_count
FROM readpast_batch AS b
CROSS APPLY (
    SELECT
        COUNT_BIG(CASE WHEN j.status = 7 THEN 1 END) AS waiting_count,
        COUNT_BIG(CASE WHEN j.status IN (0, 6) THEN 1 END) AS pending_count,
        COUNT_BIG(CASE WHEN j.status IN (1, 2) THEN 1 END) AS active_count
    FROM readpast_job AS j
    WHERE j.batch_id = b.id
        AND j.batch_id IS NOT NULL
) AS c
WHERE b.id = @id;
