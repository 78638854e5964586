-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- The claim of one fair queue (:queue; docs/fairness.md): the queue's keys with due work are
-- served in turn. A fair queue with limits (keyMaxWorkers, keyRateLimit, maxWorkers,
-- rateLimit) is claimed only in the transaction that locked its row (queue_lock_capped, :locked:
-- claims on it take turns there, so every count below includes every claim committed before);
-- one with round-robin alone is claimed without a lock, by several claims at once (SKIP LOCKED
-- keeps them apart; each moves the cursor unless another is moving it).
-- * The walk: from the key after the queue's cursor (the key served last), in key order, then
--   from the first key up to the cursor; at most :limit * 2 + 16 keys, each one probe of
--   ix_readpast_job_fair (a loose index scan), so a claim costs the same with 10 keys or 10,000.
-- * Each key walked may give at most its share of the claim (:limit over the keys walked,
--   rounded up), and at most what its keyMaxWorkers (its LEASED and PROCESSING jobs) and
--   keyRateLimit (its claims in the current fixed window, readpast_key_rate) leave; the queue's
--   own maxWorkers and rateLimit bound the whole claim, as in job_claim.
-- * The claim takes each key's best job first (priority, due time, id), key by key in walk
--   order, then each key's second, and so on: one key's backlog never delays another key's due
--   job by more than one turn. The cursor moves to the last key served (or, when none could
--   take a job, to the last key walked), so the next claim goes on from there.
-- * Job rows are locked FOR UPDATE SKIP LOCKED, only within each key's share; the claim's
--   other filters are job_claim's (expiresAt, :types, ordered groups). The per-key window
--   count is written in the same statement.
-- Scheduled jobs of the claim's queues (:queues) whose time has come are promoted first
-- (include/promote_due.sql), as job_claim does: a claim that fair queues fill runs no job_claim.
-- include: promote_due.sql
WITH RECURSIVE q AS (
    SELECT
        f.name,
        f.lease_seconds,
        f.key_max_workers,
        f.key_rate_limit,
        f.fair_cursor,
        LEAST(
            CAST(:limit AS integer),
            CASE
                WHEN f.max_workers IS NULL THEN CAST(:limit AS integer)
                ELSE GREATEST(f.max_workers - (
                    SELECT count(*) FROM readpast_job AS a
                    WHERE a.queue = f.name AND a.status IN (1, 2)), 0)
            END,
            CASE
                WHEN f.rate_limit IS NULL THEN CAST(:limit AS integer)
                WHEN f.rate_window = floor(extract(epoch FROM now()) * 1000 / f.rate_period_ms)
                    THEN GREATEST(f.rate_limit - f.rate_window_count, 0)
                ELSE f.rate_limit
            END
        ) AS room,
        CASE
            WHEN f.key_rate_limit IS NULL THEN NULL
            ELSE CAST(floor(extract(epoch FROM now()) * 1000 / f.key_rate_period_ms) AS bigint)
        END AS key_window
    FROM readpast_queue AS f
    WHERE f.name = CAST(:queue AS varchar(200))
      AND f.fair
      AND NOT f.paused
      AND f.active
      -- a queue with limits only under the lock queue_lock_capped took in this transaction
      -- (:locked); one without (round-robin alone) also without it
      AND (CAST(:locked AS boolean)
           OR (f.max_workers IS NULL AND f.rate_limit IS NULL AND f.key_max_workers IS NULL
               AND f.key_rate_limit IS NULL))
),
-- the keys with due work after the cursor, in key order. Each step is one index seek: the
-- queue and the cursor are parameters of the scan (not a join, which would read every row of
-- the queue and filter), so the index's order serves ORDER BY ... LIMIT 1
after_cursor (k, n) AS (
    SELECT CASE
        WHEN (SELECT q.fair_cursor FROM q) IS NULL THEN (
            SELECT j.fairness_key
            FROM readpast_job AS j
            WHERE j.queue = CAST(:queue AS varchar(200)) AND j.status = 0 AND j.fairness_key IS NOT NULL
            ORDER BY j.fairness_key
            LIMIT 1)
        ELSE (
            SELECT j.fairness_key
            FROM readpast_job AS j
            WHERE j.queue = CAST(:queue AS varchar(200)) AND j.status = 0
              AND j.fairness_key > (SELECT q.fair_cursor FROM q)
            ORDER BY j.fairness_key
            LIMIT 1)
    END, 1
    WHERE EXISTS (SELECT 1 FROM q WHERE q.room > 0)
    UNION ALL
    SELECT (
        SELECT j.fairness_key
        FROM readpast_job AS j
        WHERE j.queue = CAST(:queue AS varchar(200)) AND j.status = 0 AND j.fairness_key > a.k
        ORDER BY j.fairness_key
        LIMIT 1
    ), a.n + 1
    FROM after_cursor AS a
    WHERE a.k IS NOT NULL AND a.n < (SELECT q.room * 2 + 16 FROM q)
),
-- then the round's wrap: from the first key up to the cursor
from_start (k, n) AS (
    SELECT (
        SELECT j.fairness_key
        FROM readpast_job AS j
        WHERE j.queue = CAST(:queue AS varchar(200)) AND j.status = 0 AND j.fairness_key IS NOT NULL
          AND j.fairness_key <= (SELECT q.fair_cursor FROM q)
        ORDER BY j.fairness_key
        LIMIT 1
    ), 1
    WHERE EXISTS (SELECT 1 FROM q WHERE q.room > 0 AND q.fair_cursor IS NOT NULL)
    UNION ALL
    SELECT (
        SELECT j.fairness_key
        FROM readpast_job AS j
        WHERE j.queue = CAST(:queue AS varchar(200)) AND j.status = 0 AND j.fairness_key > s.k
          AND j.fairness_key <= (SELECT q.fair_cursor FROM q)
        ORDER BY j.fairness_key
        LIMIT 1
    ), s.n + 1
    FROM from_start AS s
    WHERE s.k IS NOT NULL
      AND s.n + (SELECT count(*) FROM after_cursor AS c WHERE c.k IS NOT NULL) < (SELECT q.room * 2 + 16 FROM q)
),
walked AS (
    SELECT c.k, c.n AS pos FROM after_cursor AS c WHERE c.k IS NOT NULL
    UNION ALL
    SELECT s.k, (SELECT count(*) FROM after_cursor AS c WHERE c.k IS NOT NULL) + s.n
    FROM from_start AS s
    WHERE s.k IS NOT NULL
),
key_room AS (
    SELECT
        w.k,
        w.pos,
        LEAST(
            CAST(ceil(q.room / CAST(GREATEST((SELECT count(*) FROM walked), 1) AS numeric)) AS integer),
            CASE
                WHEN q.key_max_workers IS NULL THEN q.room
                ELSE GREATEST(q.key_max_workers - (
                    SELECT count(*) FROM readpast_job AS a
                    WHERE a.queue = CAST(:queue AS varchar(200)) AND a.fairness_key = w.k AND a.status IN (1, 2)), 0)
            END,
            CASE
                WHEN q.key_rate_limit IS NULL THEN q.room
                ELSE GREATEST(q.key_rate_limit - COALESCE((
                    SELECT r.claims FROM readpast_key_rate AS r
                    WHERE r.queue = q.name AND r.fairness_key = w.k AND r.rate_window = q.key_window), 0), 0)
            END
        ) AS room
    FROM walked AS w
    CROSS JOIN q
),
locked AS (
    SELECT c.id, c.priority, c.due_at, kr.k, kr.pos
    FROM key_room AS kr
    CROSS JOIN q
    CROSS JOIN LATERAL (
        SELECT j.id, j.priority, j.due_at
        FROM readpast_job AS j
        WHERE j.queue = CAST(:queue AS varchar(200)) AND j.fairness_key = kr.k AND j.status = 0 AND j.due_at <= now()
          -- expiresAt: never start after it (the expiry sweeper moves such jobs to DEAD)
          AND (j.expires_at IS NULL OR j.expires_at > now())
          -- a claim for some job types only (:types, a JSON array; NULL: every type)
          AND (CAST(:types AS jsonb) IS NULL
               OR j.type IN (SELECT jsonb_array_elements_text(CAST(:types AS jsonb))))
          -- ordered groups, as in job_claim
          AND (j.group_key IS NULL OR NOT EXISTS (
              SELECT 1 FROM readpast_job AS g
              WHERE g.queue = j.queue AND g.group_key = j.group_key
                AND (g.status IN (1, 2) OR (g.status IN (0, 6) AND g.group_seq < j.group_seq))))
        ORDER BY j.priority DESC, j.due_at, j.id
        LIMIT kr.room
        FOR UPDATE SKIP LOCKED
    ) AS c
    WHERE kr.room > 0
),
picked AS (
    SELECT r.id, r.k, r.pos
    FROM (
        SELECT l.id, l.k, l.pos,
               row_number() OVER (PARTITION BY l.k ORDER BY l.priority DESC, l.due_at, l.id) AS turn
        FROM locked AS l
    ) AS r
    ORDER BY r.turn, r.pos
    LIMIT (SELECT q.room FROM q)
),
key_counted AS (
    INSERT INTO readpast_key_rate AS r (queue, fairness_key, rate_window, claims)
    SELECT q.name, p.k, q.key_window, count(*)
    FROM picked AS p
    CROSS JOIN q
    WHERE q.key_rate_limit IS NOT NULL
    GROUP BY q.name, p.k, q.key_window
    ON CONFLICT (queue, fairness_key) DO UPDATE
    SET claims = CASE WHEN r.rate_window = EXCLUDED.rate_window THEN r.claims + EXCLUDED.claims
                      ELSE EXCLUDED.claims END,
        rate_window = EXCLUDED.rate_window
    RETURNING r.fairness_key
),
-- the cursor, unless another claim of a round-robin queue is writing it right now (SKIP
-- LOCKED: never waited for; that claim moves it)
cursor_row AS (
    SELECT r.name FROM readpast_queue AS r
    WHERE r.name = (SELECT q.name FROM q)
    FOR UPDATE SKIP LOCKED
),
cursor_moved AS (
    UPDATE readpast_queue AS u
    SET fair_cursor = COALESCE(
        (SELECT p.k FROM picked AS p ORDER BY p.pos DESC LIMIT 1),
        (SELECT w.k FROM walked AS w ORDER BY w.pos DESC LIMIT 1),
        u.fair_cursor)
    FROM cursor_row AS c
    WHERE u.name = c.name
    RETURNING u.name
)
UPDATE readpast_job AS j
SET status = 1,
    attempt = j.attempt + 1,
    worker_id = :worker_id,
    lease_id = gen_random_uuid(),
    lease_seconds = COALESCE(CAST(:lease_seconds AS integer), (SELECT q.lease_seconds FROM q),
                             CAST(:default_lease_seconds AS integer)),
    lease_expires_at = now() + COALESCE(CAST(:lease_seconds AS integer), (SELECT q.lease_seconds FROM q),
                                        CAST(:default_lease_seconds AS integer)) * interval '1 second',
    heartbeat_at = NULL,
    modified_by = COALESCE(:modified_by, j.modified_by),
    updated_at = now()
-- by primary key, one lookup per picked row: an array, not a join (whose generic plan, not
-- knowing that picked holds :limit rows at most, can merge-join a scan of the whole table)
WHERE j.id = ANY (ARRAY(SELECT p.id FROM picked AS p))
RETURNING j.*
