-- The claim: up to @limit claimable jobs become LEASED, in one batch and one transaction (see
-- include/claim.sql for the rules and the locks). @locked_queues is the JSON array (possibly
-- empty) of the capped and rate-limited queues that queue_lock_capped locked in this
-- transaction; only those of them are claimed from. Returns the claimed rows in claim order,
-- the one result set of the batch. No lock is waited for longer than the connection's lock
-- timeout (lockTimeout, 5 s; error 1222, which the broker retries).
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- include: claimers.sql

-- the prelude (the due promotion) commits first, unless queue_lock_capped ran it at the
-- start of this transaction (@prelude = 0: the claim over capped queues, under their locks)
-- include: claim_prelude.sql
-- with scope: @queues IS NULL OR q.name IN (SELECT CAST(f.value AS nvarchar(400)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@queues) AS f)
-- with when: @prelude = 1

-- include: claim.sql

-- include: claim_slices.sql

SELECT c.*
FROM @claimed AS c
ORDER BY c.priority DESC, c.due_at ASC, c.id ASC;
