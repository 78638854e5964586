-- In a fair queue, pending jobs without a fairness key share the key '' (docs/fairness.md):
-- enqueues into a fair queue store it so; this gives it to the jobs that were there before the
-- queue became fair, and to the few an enqueue in flight stored just then. Up to @limit jobs
-- of fair queues (one queue, @queue; NULL: every fair queue). The candidates are read without
-- keeping locks, then updated by primary-key seek with READPAST and checked again (a row a
-- claim holds is left for the next pass), as the expiry sweeper does (review M5).
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @done TABLE (id bigint NOT NULL PRIMARY KEY);

UPDATE j
SET j.fairness_key = N''
OUTPUT inserted.id INTO @done (id)
FROM readpast_job AS j WITH (ROWLOCK, READPAST, FORCESEEK)
INNER JOIN (
    SELECT TOP (@limit) x.id
    FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
    CROSS APPLY (
        SELECT TOP (@limit) p.id
        FROM readpast_job AS p WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK)
        WHERE p.queue = q.name
            AND p.status IN (0, 6)
            AND p.fairness_key IS NULL
    ) AS x
    WHERE q.fair = 1
        AND (@queue IS NULL OR q.name = @queue)
) AS f ON j.id = f.id
WHERE j.fairness_key IS NULL
    AND j.status IN (0, 6);

SELECT d.id
FROM @done AS d;
