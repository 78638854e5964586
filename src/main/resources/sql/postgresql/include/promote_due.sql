-- A template (StatementCatalog): its slot "when" (default :prelude) says whether to promote at all: a
-- claim statement that begins its transaction promotes (:prelude true); inside the transaction
-- of queue_lock_capped, which promoted first (`-- with when: TRUE`), the claims that follow
-- do not (:prelude false), as on SQL Server (include/claim_prelude.sql there).
-- Scheduled jobs (status 6: pending, but not due when they were stored) of the claim's queues
-- (not paused, active, in :queues; NULL = every queue) whose due time has come become pending
-- (0), up to :limit, oldest due first, skipping rows others hold. Run before the claim, in the
-- same round trip and transaction: the claim that follows sees them. Scheduled rows stay out of
-- the claim index, so due rows are never read behind a backlog of future ones.
UPDATE readpast_job AS s
SET status = 0
FROM (
    SELECT d.id
    FROM readpast_queue AS q
    CROSS JOIN LATERAL (
        SELECT x.id, x.due_at
        FROM readpast_job AS x
        WHERE x.queue = q.name AND x.status = 6 AND x.due_at <= now()
        ORDER BY x.due_at, x.id
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    ) AS d
    WHERE {{when|CAST(:prelude AS boolean)}}
      AND NOT q.paused
      AND q.active
      AND (CAST(:queues AS jsonb) IS NULL
           OR q.name IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))
    ORDER BY d.due_at, d.id
    LIMIT :limit
) AS p
WHERE s.id = p.id
  AND s.status = 6;
