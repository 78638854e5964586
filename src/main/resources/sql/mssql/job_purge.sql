-- DELETE /jobs/ID: removes a finished (archived or dead) job for good. Returns the deleted
-- id (no row: there was no finished job with that id; a hot job is never touched). The ids
-- go OUTPUT ... INTO a table variable (never a bare OUTPUT) and are read back as the one
-- result set.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @purged TABLE (id bigint NOT NULL);

-- the dead letters first, then the archive: the order every other statement that touches
-- both takes (docs/sqlserver.md, "Lock order")
DELETE FROM readpast_job_dead
OUTPUT deleted.id INTO @purged (id)
WHERE id = @id;

DELETE FROM readpast_job_archive
OUTPUT deleted.id INTO @purged (id)
WHERE id = @id;

SELECT p.id
FROM @purged AS p;
