-- First statement of a firing transaction: lock one due schedule, skipping it when another
-- instance holds it (that one is firing it): UPDLOCK held to the end of the transaction,
-- READPAST (READ COMMITTED, ROWLOCK) so that nobody waits, READCOMMITTEDLOCK so that RCSI
-- row versions do not hide a firing in progress. Returns the row with the database's now and
-- whether the job of its last fire is still live (PENDING, LEASED or PROCESSING: the hot
-- table holds only those), for the overlap policy. No row: not due, paused, gone or taken.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
    s.*,
    SYSUTCDATETIME() AS db_now,
    CASE
        WHEN EXISTS (
            SELECT 1
            FROM readpast_job AS j WITH (READCOMMITTEDLOCK)
            WHERE j.id = s.last_job_id
        ) THEN CAST(1 AS bit)
        ELSE CAST(0 AS bit)
    END AS last_job_live
FROM readpast_schedule AS s WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
WHERE s.name = @name
    AND s.paused = 0
    AND s.next_fire_at <= SYSUTCDATETIME();
