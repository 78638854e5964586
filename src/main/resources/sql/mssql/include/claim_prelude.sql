-- A template (StatementCatalog): the slot "scope" is the condition on the queue row q that puts a
-- queue in the claim's scope, "when" (default: always) whether to run at all. What a claim does before it locks anything, in a transaction of
-- its own that commits here (review round 2, N2: the rows a claim promoted were held while it
-- went on to wait for other job rows, the ordered-group probe, and two claims could deadlock on
-- each other's promoted rows). Run first by every claim transaction: job_claim and
-- job_claim_fair when they begin it (@prelude = 1), job_ack_claim after its acks commit, and
-- queue_lock_capped before it locks the queue rows (then job_claim and job_claim_fair run with
-- @prelude = 0 in its transaction).
-- 1. The tally rows (V27: a fair queue's cursor, a rate-limited queue's window count) that the
--    fair and rate-limited queues in scope lack are created, so that claims only ever update
--    them. A first look without locks (NOLOCK sees a row another transaction is inserting); only
--    when one is missing, the insert under UPDLOCK, HOLDLOCK, so that two claims never both
--    insert it (the second waits for the first's commit, holding nothing).
-- 2. Due scheduled jobs of the queues in scope become pending (include/promote_due.sql).
IF {{when|1 = 1}}
BEGIN
    IF EXISTS (
        SELECT 1
        FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
        WHERE (q.fair = 1 OR q.rate_limit IS NOT NULL)
            AND ({{scope}})
            AND NOT EXISTS (SELECT 1 FROM readpast_queue_tally AS n WITH (NOLOCK) WHERE n.queue = q.name)
    )
    BEGIN
        INSERT INTO readpast_queue_tally (queue)
        SELECT q.name
        FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
        WHERE (q.fair = 1 OR q.rate_limit IS NOT NULL)
            AND ({{scope}})
            AND NOT EXISTS (
                SELECT 1
                FROM readpast_queue_tally AS h WITH (UPDLOCK, HOLDLOCK, ROWLOCK)
                WHERE h.queue = q.name
            );
    END;

    -- include: promote_due.sql
    -- with scope: {{scope}}

    IF @@TRANCOUNT > 0
    BEGIN
        COMMIT TRANSACTION;
    END;
END;
