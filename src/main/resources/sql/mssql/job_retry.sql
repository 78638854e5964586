-- Back to PENDING, due after @delay_ms (a failure with attempts left, or an expired lease):
-- stored as 0 when due at once, else as 6 (scheduled: out of the claim index until a claim
-- promotes it, see include/claim.sql). With @expired_only = 1 (the lease sweeper) only if the
-- lease has expired by the database clock. @delay_ms is bigint: split into seconds and
-- milliseconds because DATEADD takes an int. Guarded by id, lease id and status: no row means
-- the lease was lost. A job whose cancellation was requested is not retried (no row: the
-- caller cancels it instead). @error becomes last_error and is appended to errors (the last
-- @keep_errors attempts' errors, a JSON array; include/errors_appended.sql). The row is read
-- and locked by the guarded read first (UPDLOCK), so that the update that follows changes the
-- row that was read.
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @updated TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @errors nvarchar(max);
DECLARE @appended_errors nvarchar(max);
DECLARE @error_attempt int;
DECLARE @error_worker nvarchar(200);
DECLARE @found bigint;

-- include: retry_held.sql

SELECT j.*
FROM readpast_job AS j
INNER JOIN @updated AS u ON j.id = u.id;
