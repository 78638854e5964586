-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- The claim of one fair queue (:queue; docs/fairness.md): the queue's keys with due work are
-- served in turn. A fair queue with limits (keyMaxWorkers, keyRateLimit, maxWorkers,
-- rateLimit) is claimed only in the transaction that locked its row (queue_lock_capped, :locked:
-- claims on it take turns there, so every count below includes every claim committed before);
-- one with round-robin alone without a lock, by several claims at once (SKIP LOCKED keeps them
-- apart; each moves the cursor unless another is moving it).
-- * The walk: from the key after the queue's cursor (the key served last), in key order, then
--   from the first key up to the cursor. Each step is one index scan of ix_readpast_job_fair
--   that locks the next key's best rows (priority, due time, id; FOR UPDATE SKIP LOCKED: rows
--   other claims hold are passed over): the key is found and its rows taken by the same scan.
--   A key with fewer rows to give than its share lets the same step go on into the next key.
-- * Each key's share of the claim: :limit over the keys there are, rounded up. The walk cannot
--   count the keys before it meets them, so it takes them from the queue's fair_keys, the keys
--   the last claim walked (written below), and never counts fewer than the keys met so far: when
--   fair_keys is right no row is locked that the claim does not lease; when keys were added
--   since, a share is still never smaller than the true one (every key's turn comes before any
--   key's next); when keys went away, the claim takes less than it could, once. A queue's first
--   claim (no fair_keys yet) counts the keys first (first_count).
-- * The walk ends after :limit steps (each gave at least one row, so every key's first turn
--   is in), or when the keys run out; a queue with key limits walks up to :limit * 2 + 16
--   steps, as keys at their limit give nothing.
-- * The claim takes each key's first job (priority, due time, id), key by key in walk order,
--   then each key's second, and so on, at most what keyMaxWorkers (its LEASED and PROCESSING
--   jobs) and keyRateLimit (its claims in the current fixed window, readpast_key_rate) leave;
--   the queue's own maxWorkers and rateLimit bound the whole claim, as in job_claim. One key's
--   backlog never delays another key's due job by more than one turn. Rows locked and not
--   taken are let go at commit. The cursor moves to the last key served (or, when none could
--   take a job, to the last key walked).
-- * The claim's other filters are job_claim's (due time, expiresAt, :types, ordered groups);
--   all but the key are checked on the row, not on every index entry the step passes. The
--   per-key window count is written in the same statement.
-- Scheduled jobs of the claim's queues (:queues) whose time has come are promoted first
-- (include/promote_due.sql), as job_claim does: a claim that fair queues fill runs no job_claim.
-- Claims merged by the broker run as one (:claimers, as in job_claim: slices lo+1..hi of the
-- rows taken, in the order the walk took them; :limit is their sum).
-- include: promote_due.sql
WITH RECURSIVE claimers AS (
    SELECT c.n, c.worker_id, c.lease_seconds, c.lo, c.hi
    FROM jsonb_to_recordset(CAST(:claimers AS jsonb))
         AS c(n integer, worker_id text, lease_seconds integer, lo integer, hi integer)
),
q AS (
    SELECT
        f.name,
        -- how ix_readpast_job_fair names the queue (a fixed-width first column, see V19)
        CAST(md5(f.name) AS uuid) AS queue_id,
        f.lease_seconds,
        f.key_max_workers,
        f.key_rate_limit,
        f.fair_cursor,
        f.fair_keys,
        f.key_max_workers IS NOT NULL OR f.key_rate_limit IS NOT NULL AS key_limited,
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
-- a queue's first claim (no fair_keys yet) counts the keys first, up to the claim's room: one
-- index-only seek per key, the walk of job_claim_fair before it locked as it went
first_count (k, n) AS (
    SELECT (
        SELECT j.fairness_key
        FROM readpast_job AS j
        WHERE CAST(md5(j.queue) AS uuid) = (SELECT q.queue_id FROM q)
          AND j.queue = CAST(:queue AS varchar(200)) AND j.status = 0 AND j.fairness_key IS NOT NULL
        ORDER BY j.fairness_key
        LIMIT 1), 0
    FROM q
    WHERE q.fair_keys IS NULL AND q.room > 0
    UNION ALL
    SELECT (
        SELECT j.fairness_key
        FROM readpast_job AS j
        WHERE CAST(md5(j.queue) AS uuid) = (SELECT q.queue_id FROM q)
          AND j.queue = CAST(:queue AS varchar(200)) AND j.status = 0 AND j.fairness_key > c.k
        ORDER BY j.fairness_key
        LIMIT 1), c.n + 1
    FROM first_count AS c
    WHERE c.k IS NOT NULL AND c.n < (SELECT q.room FROM q)
),
-- what the walk needs: the room, the keys there are (as the last claim, or the first count,
-- found them), the steps it may take, the most any one step may lock (a key's limits bound it
-- too) and the last key with due work (one index probe), where its first part ends
walk_bounds AS (
    SELECT
        q.room,
        q.queue_id,
        COALESCE(q.fair_keys, (SELECT max(c.n) FROM first_count AS c WHERE c.k IS NOT NULL) + 1) AS fair_keys,
        CASE WHEN q.key_limited THEN q.room * 2 + 16 ELSE q.room END AS steps,
        LEAST(q.room, q.key_max_workers, q.key_rate_limit) AS step_max,
        (SELECT j.fairness_key
         FROM readpast_job AS j
         WHERE CAST(md5(j.queue) AS uuid) = q.queue_id
           AND j.queue = CAST(:queue AS varchar(200)) AND j.status = 0 AND j.fairness_key IS NOT NULL
         ORDER BY j.fairness_key DESC
         LIMIT 1) AS last_key
    FROM q
    WHERE q.room > 0
),
-- the walk, one row per step: phase 0 takes the keys after the cursor (up to the last key),
-- phase 1 those from the first key up to the cursor (or every key, with no cursor yet), 2 is
-- the end; m counts the steps that took rows (about the keys met so far). A step scans the
-- keys from lo to hi: after a step that reached key k, lo is k || U+0001, the first string
-- after k in byte order (keys compare as COLLATE "C", and no string holds U+0000), so one scan
-- serves every step; from the first key, lo is ''. ids and keys are the rows the step locked,
-- in index order.
walk (m, phase, lo, hi, ids, keys) AS (
    SELECT 0,
           CASE WHEN q.fair_cursor IS NULL THEN 1 ELSE 0 END,
           CAST(COALESCE(q.fair_cursor || chr(1), '') AS varchar) COLLATE "C",
           CAST(b.last_key AS varchar) COLLATE "C",
           CAST(NULL AS bigint[]),
           CAST(NULL AS varchar[]) COLLATE "C"
    FROM q
    CROSS JOIN walk_bounds AS b
    WHERE b.last_key IS NOT NULL
    UNION ALL
    SELECT CASE WHEN s.k IS NOT NULL THEN w.m + 1 ELSE w.m END,
           CASE WHEN s.k IS NOT NULL THEN w.phase ELSE w.phase + 1 END,
           CASE WHEN s.k IS NOT NULL THEN s.k || chr(1) ELSE '' END,
           CASE WHEN s.k IS NULL AND w.phase = 0 THEN (SELECT q.fair_cursor FROM q) ELSE w.hi END,
           s.ids,
           s.keys
    FROM walk AS w
    CROSS JOIN walk_bounds AS b
    CROSS JOIN LATERAL (
        -- k: the last key the scan reached; the rows, in index order, with the due time checked
        -- on the row (pending rows are due by the time they are written: this keeps a claim from
        -- taking one an instant early), not on every index entry passed
        SELECT max(t.fairness_key) AS k,
               array_agg(t.id) FILTER (WHERE t.due_at <= now()) AS ids,
               array_agg(t.fairness_key) FILTER (WHERE t.due_at <= now()) AS keys
        FROM (
            SELECT j.id, j.fairness_key, j.due_at
            FROM readpast_job AS j
            WHERE CAST(md5(j.queue) AS uuid) = b.queue_id
              AND j.queue = CAST(:queue AS varchar(200)) AND j.status = 0
              AND j.fairness_key >= w.lo AND j.fairness_key <= w.hi
              -- expiresAt, job types, ordered groups, as in job_claim
              -- include: claimable.sql
            -- the aggregates above take the rows in this order (a plain aggregate over one
            -- ordered scan), which the turns below count by
            ORDER BY j.fairness_key, j.priority DESC, j.due_at, j.id
            -- the share: the limit over the keys (fair_keys, or the keys met so far), rounded up
            LIMIT LEAST(b.step_max, (b.room + GREATEST(b.fair_keys, w.m + 1) - 1) / GREATEST(b.fair_keys, w.m + 1))
            FOR UPDATE SKIP LOCKED
        ) AS t
    ) AS s
    WHERE w.phase < 2
      AND w.m < b.steps
),
-- the rows locked, each with its turn: 1 for its key's first row, 2 for the second, ...
walked AS (
    SELECT x.id, x.k, w.m AS pos,
           row_number() OVER (PARTITION BY x.k ORDER BY w.m, x.i) AS turn
    FROM walk AS w
    CROSS JOIN LATERAL unnest(w.ids, w.keys) WITH ORDINALITY AS x(id, k, i)
    WHERE w.ids IS NOT NULL
),
-- a queue with keyMaxWorkers: its jobs at work by key, in one pass over its entries of
-- readpast_job_active (which carries the key)
key_active AS (
    SELECT a.fairness_key AS k, count(*) AS n
    FROM readpast_job AS a
    WHERE a.queue = CAST(:queue AS varchar(200)) AND a.status IN (1, 2)
      AND (SELECT q.key_max_workers FROM q) IS NOT NULL
    GROUP BY a.fairness_key
),
-- a queue with key limits: what keyMaxWorkers and keyRateLimit leave each key walked
key_room AS (
    SELECT d.k,
        LEAST(
            CASE
                WHEN q.key_max_workers IS NULL THEN q.room
                ELSE GREATEST(q.key_max_workers - COALESCE((SELECT ka.n FROM key_active AS ka WHERE ka.k = d.k), 0), 0)
            END,
            CASE
                WHEN q.key_rate_limit IS NULL THEN q.room
                ELSE GREATEST(q.key_rate_limit - COALESCE((
                    SELECT r.claims FROM readpast_key_rate AS r
                    WHERE r.queue = q.name AND r.fairness_key = d.k AND r.rate_window = q.key_window), 0), 0)
            END
        ) AS room
    FROM (SELECT DISTINCT wk.k FROM walked AS wk) AS d
    CROSS JOIN q
    WHERE q.key_limited
),
picked AS (
    SELECT wk.id, wk.k, wk.pos, row_number() OVER (ORDER BY wk.turn, wk.pos, wk.k) AS rn
    FROM walked AS wk
    LEFT JOIN key_room AS kr ON kr.k = wk.k
    WHERE kr.k IS NULL OR wk.turn <= kr.room
    ORDER BY wk.turn, wk.pos, wk.k
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
-- the cursor and the keys walked, unless another claim of a round-robin queue is writing them
-- right now (SKIP LOCKED: never waited for; that claim moves them)
cursor_row AS (
    SELECT r.name FROM readpast_queue AS r
    WHERE r.name = (SELECT q.name FROM q)
    FOR UPDATE SKIP LOCKED
),
cursor_moved AS (
    UPDATE readpast_queue AS u
    SET fair_cursor = COALESCE(
            (SELECT p.k FROM picked AS p ORDER BY p.pos DESC, p.k DESC LIMIT 1),
            (SELECT wk.k FROM walked AS wk ORDER BY wk.pos DESC, wk.k DESC LIMIT 1),
            u.fair_cursor),
        fair_keys = COALESCE((SELECT CAST(NULLIF(count(DISTINCT wk.k), 0) AS integer) FROM walked AS wk),
                             u.fair_keys)
    FROM cursor_row AS c
    WHERE u.name = c.name
    RETURNING u.name
),
-- each picked row with its claim
assigned AS (
    SELECT p.id, cl.n, cl.worker_id, cl.lease_seconds
    FROM picked AS p
    INNER JOIN claimers AS cl ON p.rn > cl.lo AND p.rn <= cl.hi
)
UPDATE readpast_job AS j
SET status = 1,
    attempt = j.attempt + 1,
    worker_id = a.worker_id,
    lease_id = gen_random_uuid(),
    lease_seconds = COALESCE(a.lease_seconds, (SELECT q.lease_seconds FROM q),
                             CAST(:default_lease_seconds AS integer)),
    -- a job with timeoutSeconds: its lease never runs past its deadline (LEAST skips a NULL)
    lease_expires_at = LEAST(now() + COALESCE(a.lease_seconds, (SELECT q.lease_seconds FROM q),
                                              CAST(:default_lease_seconds AS integer)) * interval '1 second',
                             now() + j.timeout_seconds * interval '1 second'),
    deadline_at = now() + j.timeout_seconds * interval '1 second',
    heartbeat_at = NULL,
    modified_by = COALESCE(:modified_by, j.modified_by),
    updated_at = now()
FROM assigned AS a
-- by primary key, one lookup per picked row: the array drives the scan (a join alone, its generic
-- plan not knowing that picked holds :limit rows at most, can merge-join a scan of the whole
-- table); the join to the assigned rows then gives each its claim
WHERE j.id = ANY (ARRAY(SELECT p.id FROM picked AS p))
  AND j.id = a.id
RETURNING j.*, a.n AS claimer
