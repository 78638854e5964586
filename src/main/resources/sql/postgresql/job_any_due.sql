-- The shared long-poll check: which of these queues (:queues JSON array, NULL = every queue)
-- have a job claimable now? One statement per instance per tick, and only while claims wait.
SELECT q.name
FROM readpast_queue AS q
WHERE NOT q.paused
  AND q.active
  AND (CAST(:queues AS jsonb) IS NULL
       OR q.name IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))
  AND EXISTS (
      SELECT 1 FROM readpast_job AS j
      WHERE j.queue = q.name AND j.status = 0 AND j.due_at <= now()
        AND (j.expires_at IS NULL OR j.expires_at > now())
  )
