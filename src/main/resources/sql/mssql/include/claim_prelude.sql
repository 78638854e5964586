-- A template (StatementCatalog): the slot "scope" is the condition on the queue row q that puts a
-- queue in the claim's scope, "when" (default: always) whether to run at all. What a claim does
-- before it locks anything, in a transaction of its own that commits here (review round 2, N2:
-- the rows a claim promoted were held while it went on to wait for other job rows, the
-- ordered-group probe, and two claims could deadlock on each other's promoted rows): due
-- scheduled jobs of the queues in scope become pending (include/promote_due.sql). Run first by
-- every claim transaction: job_claim and job_claim_fair when they begin it (@prelude = 1),
-- job_ack_claim after its acks commit, and queue_lock_capped before it locks the queue rows (then
-- job_claim and job_claim_fair run with @prelude = 0 in its transaction).
IF {{when|1 = 1}}
BEGIN
    -- include: promote_due.sql
    -- with scope: {{scope}}

    IF @@TRANCOUNT > 0
    BEGIN
        COMMIT TRANSACTION;
    END;
END;
