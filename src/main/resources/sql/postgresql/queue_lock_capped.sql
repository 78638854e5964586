-- First statement of a claim transaction that may reach a capped or rate-limited queue: lock
-- the rows of those queues in scope that have room and due work, in name order. Fair queues
-- with per-key limits are locked the same way (fair: the caller claims them with
-- job_claim_fair); a fair queue without limits needs no lock (round-robin alone). Claims on one
-- such queue take turns here; the claim statement that follows takes a fresh snapshot, so its
-- count of leased jobs includes every claim committed before this lock was granted. Uncapped
-- queues take no lock. Rate-limited queues are locked the same way (their window count is in
-- the row); rate_limited tells the caller to count its claims on them (queue_rate_count).
-- Never waits: a queue row another transaction holds (a claim in progress, even one whose
-- broker froze, or a settings change) is skipped (SKIP LOCKED), and this claim leaves that
-- queue alone (the claim takes capped queues only when it locked them); it is returned with
-- locked = false, so that the caller can try again once that claim has committed. Queues with no room are not locked at all: the leased count and the rate window are
-- read first (a pre-filter; the claim counts again under the lock).
-- the due scheduled jobs of every queue in scope become pending first (up to :limit), as the
-- claims that follow in this transaction do not promote (:prelude false); on SQL Server this
-- commits before the queue rows are locked (review round 2, N2)
-- include: promote_due.sql
-- with when: TRUE
-- The queues worth locking first (no lock), then their rows locked (SKIP LOCKED); every
-- candidate is returned, locked = false for one another transaction holds: the caller tries
-- again a moment later rather than answer "nothing claimable" while that queue has room and due
-- work (ClaimPath, CONTENDED_RETRY).
WITH cand AS (
    SELECT q.name
    FROM readpast_queue AS q
    WHERE (q.max_workers IS NOT NULL OR q.rate_limit IS NOT NULL OR q.key_max_workers IS NOT NULL
           OR q.key_rate_limit IS NOT NULL)
      AND NOT q.paused
      AND q.active
      AND (CAST(:queues AS jsonb) IS NULL
           OR q.name IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))
      AND (q.max_workers IS NULL
           OR q.max_workers > (SELECT count(*) FROM readpast_job AS a
                               WHERE a.queue = q.name AND a.status IN (1, 2)))
      AND NOT (q.rate_limit IS NOT NULL
               AND q.rate_window = floor(extract(epoch FROM now()) * 1000 / q.rate_period_ms)
               AND q.rate_window_count >= q.rate_limit)
      AND (EXISTS (
               SELECT 1 FROM readpast_job AS j
               WHERE j.queue = q.name AND j.status = 0 AND j.due_at <= now())
           OR EXISTS (
               SELECT 1 FROM readpast_job AS s
               WHERE s.queue = q.name AND s.status = 6 AND s.due_at <= now()))
),
held AS (
    SELECT q.name, q.rate_limit IS NOT NULL AS rate_limited, q.fair
    FROM readpast_queue AS q
    WHERE q.name IN (SELECT c.name FROM cand AS c)
      AND (q.max_workers IS NOT NULL OR q.rate_limit IS NOT NULL OR q.key_max_workers IS NOT NULL
           OR q.key_rate_limit IS NOT NULL)
      AND NOT q.paused
      AND q.active
    ORDER BY q.name
    FOR UPDATE OF q SKIP LOCKED
)
SELECT c.name, COALESCE(h.rate_limited, FALSE) AS rate_limited, COALESCE(h.fair, FALSE) AS fair,
       h.name IS NOT NULL AS locked
FROM cand AS c
LEFT JOIN held AS h ON h.name = c.name
ORDER BY c.name
