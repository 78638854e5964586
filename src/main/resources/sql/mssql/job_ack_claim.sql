-- Ack and claim, one batch (POST /claim with "ack"): the acknowledged jobs whose lease is held
-- move to the archive as SUCCEEDED (include/batch_ack.sql, as job_complete_many does) and that
-- transaction commits; then up to @limit claimable jobs of uncapped queues become LEASED in a
-- transaction of their own (include/claim.sql, as job_claim does with no capped queue locked; a
-- claim that may reach a capped or rate-limited queue runs job_complete_many, then
-- queue_lock_capped and job_claim, instead). Committing the acks first means the claim's locks
-- are never taken while this batch still holds the acked rows: two ack-and-claims never wait
-- for each other's deletes (the ordered-group probe would, and deadlock). @items is a JSON
-- array of {"id", "lease_id", "result" (JSON text or null)}. Returns one result set: one row
-- per claimed job (job columns, in claim order), or one row of NULL job columns when nothing
-- was claimed; the first row's "acked" is a JSON array of [id, "queue", "lease_id"] of the completed jobs
-- (STRING_AGG over nvarchar(max), so that a long list is not cut at 4000 characters).
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @acked nvarchar(max);
-- this claim locked no capped or rate-limited queue
DECLARE @locked_queues nvarchar(max) = N'[]';
-- a job of a batch, or one that others wait on, is completed by job_complete_many with its
-- settlement, in a transaction (ClaimPath): this batch leaves it alone (include/batch_ack.sql)
DECLARE @linked bit = 0;

-- include: batch_ack.sql

-- the acks are done: commit them before the claim takes any lock (the caller runs this batch in
-- a transaction; the claim below begins the next one, which the caller commits)
IF @@TRANCOUNT > 0
BEGIN
    COMMIT TRANSACTION;
END;

-- include: claimers.sql

-- the claim's prelude (the due promotion), committed before the claim locks anything
-- include: claim_prelude.sql
-- with scope: @queues IS NULL OR q.name IN (SELECT CAST(f.value AS nvarchar(400)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@queues) AS f)

-- include: claim.sql

-- include: claim_slices.sql

SELECT
    @acked = STRING_AGG(
        CAST(CONCAT(N'[', m.id, N',"', STRING_ESCAPE(m.queue, 'json'), N'","', LOWER(CAST(m.lease_id AS nvarchar(36))), N'"]') AS nvarchar(max)),
        N','
    )
FROM @moved AS m;

SELECT
    CASE WHEN c.n IS NULL OR c.n = 1 THEN CONCAT(N'[', @acked, N']') END AS acked,
    c.*
FROM (SELECT 1 AS one) AS o
LEFT JOIN (
    SELECT
        ROW_NUMBER() OVER (ORDER BY k.priority DESC, k.due_at ASC, k.id ASC) AS n,
        k.*
    FROM @claimed AS k
) AS c ON 1 = 1
ORDER BY c.n ASC;
