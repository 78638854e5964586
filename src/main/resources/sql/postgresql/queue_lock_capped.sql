-- First statement of a claim transaction: lock the rows of the capped queues in scope that
-- have due work, in name order. Claims on the same capped queue queue up here (and only
-- here); the claim statement that follows takes a fresh snapshot, so its count of leased
-- jobs includes every claim committed before this lock was granted. Uncapped queues take
-- no lock. Rate-limited queues are locked the same way (their window count is in the row);
-- rate_limited tells the caller to count its claims on them (queue_rate_count).
SELECT q.name, q.rate_limit IS NOT NULL AS rate_limited
FROM readpast_queue AS q
WHERE (q.max_workers IS NOT NULL OR q.rate_limit IS NOT NULL)
  AND NOT q.paused
  AND q.active
  AND (CAST(:queues AS jsonb) IS NULL
       OR q.name IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))
  AND EXISTS (
      SELECT 1 FROM readpast_job AS j
      WHERE j.queue = q.name AND j.status = 0 AND j.due_at <= now()
  )
ORDER BY q.name
FOR UPDATE OF q
