-- The claim of one fair queue (@queue; docs/fairness.md). A fair queue with limits is claimed
-- only in the transaction whose queue_lock_capped locked its row (@locked: claims on it take
-- turns there, so every count below includes every claim committed before); one with
-- round-robin alone without a lock, by several claims at once. The cursor and the rate window
-- count are in the queue's tally row (V27; review 2's N1: the claim never writes the queue row),
-- read with READPAST (a claim moving the cursor right now: this claim leaves the queue alone)
-- and written with READPAST, last. The rules are job_claim_fair's on PostgreSQL (which finds each key and
-- locks its rows in one index scan, sizing the shares before it meets the keys; here the walk
-- comes first and counts the keys, then each key's rows are read, so the shares are exact):
-- * The walk: from the key after the queue's cursor (the key served last), in key order, then
--   from the first key up to the cursor; at most @limit * 2 + 16 keys, each one seek of the
--   filtered index ix_readpast_job_fair (a loose index scan), so a claim costs the same with
--   10 keys or 10,000.
-- * Each key walked may give at most its share of the claim (@limit over the keys walked,
--   rounded up), and at most what its keyMaxWorkers and keyRateLimit leave; the queue's own
--   maxWorkers and rateLimit bound the whole claim.
-- * Each key's best job first (priority, due time, id), key by key in walk order, then each
--   key's second, and so on. The cursor moves to the last key served (or, when none could take
--   a job, to the last key walked).
-- Lock rules (reviews/tsql-review.md): the walk reads with READPAST and keeps no locks; each
-- key's candidates are read UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK by seek on
-- ix_readpast_job_fair, at most the key's share (only the rows it may take are locked); the
-- per-key counts are locking reads (real locks under RCSI) that can wait only for an ack,
-- heartbeat or expiry in flight, never for a claim (claims here hold the queue row); the
-- UPDATE reaches its rows by primary-key seek (include/fair_claim_update.sql) and re-checks
-- status = 0. Scheduled jobs of the queue whose time has come were promoted before, in the
-- claim's prelude (include/claim_prelude.sql), committed before this claim locks anything.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- include: claim_tables.sql

-- include: claimers.sql

DECLARE @walked TABLE (
    pos int NOT NULL PRIMARY KEY,
    k nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    room int NOT NULL
);
DECLARE @candidates TABLE (
    id bigint NOT NULL PRIMARY KEY,
    k nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    pos int NOT NULL,
    priority int NOT NULL,
    due_at datetime2(6) NOT NULL
);
DECLARE @picked TABLE (
    id bigint NOT NULL PRIMARY KEY,
    k nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    pos int NOT NULL
);
-- the claim's one time: its leases, and the per-key window it counts in
DECLARE @claim_now datetime2(6) = SYSUTCDATETIME();
DECLARE @room int;
DECLARE @cursor nvarchar(200);
DECLARE @key_max int;
DECLARE @key_rate int;
DECLARE @key_window bigint;
DECLARE @walk_max int;
DECLARE @n int = 0;
DECLARE @after nvarchar(200);
DECLARE @next nvarchar(200);
DECLARE @wrapped bit = 0;
DECLARE @past_cursor bit;
DECLARE @per_key int;
DECLARE @pos int;
DECLARE @k nvarchar(200);
DECLARE @key_room int;
DECLARE @active bigint;
DECLARE @used int;

-- the prelude (the due promotion) commits first, unless queue_lock_capped ran it at the
-- start of this transaction (@prelude = 0)
-- include: claim_prelude.sql
-- with scope: q.name = @queue
-- with when: @prelude = 1

-- the queue (its row is this transaction's): its room, cursor and key limits
INSERT INTO @eligible (name, lease_seconds, room)
SELECT
    q.name,
    q.lease_seconds,
    CASE WHEN cap.room < rate.room THEN cap.room ELSE rate.room END
FROM readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (pk_readpast_queue), FORCESEEK)
OUTER APPLY (
    SELECT COUNT_BIG(*) AS n
    FROM readpast_job AS a WITH (READCOMMITTEDLOCK, INDEX (ix_readpast_job_active), FORCESEEK)
    WHERE q.max_workers IS NOT NULL
        AND a.queue = q.name
        AND a.status IN (1, 2)
) AS act
CROSS APPLY (
    SELECT CASE
        WHEN q.max_workers IS NULL THEN @limit
        WHEN q.max_workers > act.n THEN q.max_workers - act.n
        ELSE 0
    END AS room
) AS cap
-- the queue's tally row (V27): its cursor and rate window count, skipped while another claim
-- writes it (that claim serves the queue now; this one leaves it alone)
INNER JOIN readpast_queue_tally AS t WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (pk_readpast_queue_tally), FORCESEEK)
    ON t.queue = q.name
CROSS APPLY (
    SELECT CASE
        WHEN q.rate_limit IS NULL THEN @limit
        WHEN
            t.rate_window
            = DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS datetime2(6)), SYSUTCDATETIME())
            / q.rate_period_ms
            THEN CASE
                WHEN q.rate_limit > t.rate_window_count THEN q.rate_limit - t.rate_window_count
                ELSE 0
            END
        ELSE q.rate_limit
    END AS room
) AS rate
WHERE q.name = @queue
    AND q.fair = 1
    AND q.paused = 0
    AND q.active = 1
    -- a queue with limits only under the lock queue_lock_capped took in this transaction
    -- (@locked); one without (round-robin alone) also without it
    AND (
        @locked = 1
        OR (q.max_workers IS NULL AND q.rate_limit IS NULL AND q.key_max_workers IS NULL AND q.key_rate_limit IS NULL)
    )
    -- in the claim's scope (@queues, a JSON array; NULL = every queue), as queue_lock_capped found it
    AND (
        @queues IS NULL
        OR q.name IN (
            SELECT CAST(f.value AS nvarchar(400)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@queues) AS f
        )
    );

SELECT
    @room = CASE WHEN e.room < @limit THEN e.room ELSE @limit END,
    @cursor = (
        SELECT t.fair_cursor
        FROM readpast_queue_tally AS t WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (pk_readpast_queue_tally), FORCESEEK)
        WHERE t.queue = e.name
    ),
    @key_max = q.key_max_workers,
    @key_rate = q.key_rate_limit,
    @key_window = CASE
        WHEN q.key_rate_limit IS NULL THEN NULL
        ELSE DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS datetime2(6)), @claim_now) / q.key_rate_period_ms
    END
FROM @eligible AS e
INNER JOIN readpast_queue AS q WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (pk_readpast_queue), FORCESEEK)
    ON q.name = e.name;

SET @walk_max = ISNULL(@room, 0) * 2 + 16;
SET @after = @cursor;
-- the walk: keys after the cursor, then (once) from the first key up to the cursor
-- (each step one seek: the key condition is never an OR, which would make the seek a scan of
-- the cursor key's rows; the end of the wrap is told by the key found, compared in the column's
-- own collation)
WHILE ISNULL(@room, 0) > 0 AND @n < @walk_max
BEGIN
    SET @next = NULL;
    SET @past_cursor = 0;
    IF @after IS NULL
    BEGIN
        SELECT TOP (1)
            @next = j.fairness_key,
            @past_cursor = CASE WHEN @wrapped = 1 AND j.fairness_key > @cursor THEN 1 ELSE 0 END
        FROM readpast_job AS j WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_fair), FORCESEEK)
        WHERE j.queue = @queue
            AND j.status = 0
            AND j.fairness_key IS NOT NULL
        ORDER BY j.fairness_key ASC;
    END;
    ELSE
    BEGIN
        SELECT TOP (1)
            @next = j.fairness_key,
            @past_cursor = CASE WHEN @wrapped = 1 AND j.fairness_key > @cursor THEN 1 ELSE 0 END
        FROM readpast_job AS j WITH (READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_fair), FORCESEEK)
        WHERE j.queue = @queue
            AND j.status = 0
            AND j.fairness_key IS NOT NULL
            AND j.fairness_key > @after
        ORDER BY j.fairness_key ASC;
    END;
    IF @past_cursor = 1
    BEGIN
        BREAK;
    END;
    IF @next IS NULL
    BEGIN
        IF @wrapped = 1 OR @cursor IS NULL
        BEGIN
            BREAK;
        END;
        SET @wrapped = 1;
        SET @after = NULL;
        CONTINUE;
    END;
    SET @n = @n + 1;
    INSERT INTO @walked (pos, k, room) VALUES (@n, @next, 0);
    SET @after = @next;
END;

-- each key's room: its share of the claim, what keyMaxWorkers and keyRateLimit leave
SET @per_key = CASE WHEN @n = 0 THEN 0 ELSE (@room + @n - 1) / @n END;
SET @pos = 1;
WHILE @pos <= @n
BEGIN
    SELECT @k = w.k FROM @walked AS w WHERE w.pos = @pos;
    SET @key_room = @per_key;
    IF @key_max IS NOT NULL
    BEGIN
        SELECT @active = COUNT_BIG(*)
        FROM readpast_job AS a WITH (READCOMMITTEDLOCK, INDEX (ix_readpast_job_fair_active), FORCESEEK)
        WHERE a.queue = @queue
            AND a.fairness_key IS NOT NULL
            AND a.fairness_key = @k
            AND a.status IN (1, 2);
        IF @key_max - @active < @key_room
        BEGIN
            SET @key_room = CASE WHEN @key_max > @active THEN @key_max - @active ELSE 0 END;
        END;
    END;
    IF @key_rate IS NOT NULL
    BEGIN
        SET @used = ISNULL((
            SELECT r.claims
            FROM readpast_key_rate AS r WITH (ROWLOCK, READCOMMITTEDLOCK)
            WHERE r.queue = @queue
                AND r.fairness_key = @k
                AND r.rate_window = @key_window
        ), 0);
        IF @key_rate - @used < @key_room
        BEGIN
            SET @key_room = CASE WHEN @key_rate > @used THEN @key_rate - @used ELSE 0 END;
        END;
    END;
    IF @key_room > 0
    BEGIN
        INSERT INTO @candidates (id, k, pos, priority, due_at)
        SELECT TOP (@key_room)
            j.id,
            @k,
            @pos,
            j.priority,
            j.due_at
        FROM readpast_job AS j WITH (
            UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK, INDEX (ix_readpast_job_fair), FORCESEEK
        )
        WHERE j.queue = @queue
            AND j.fairness_key IS NOT NULL
            AND j.fairness_key = @k
            AND j.status = 0
            AND j.due_at <= SYSUTCDATETIME()
            AND (j.expires_at IS NULL OR j.expires_at > SYSUTCDATETIME())
            AND (
                @types IS NULL
                OR j.type IN (
                    SELECT CAST(ty.value AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@types) AS ty
                )
            )
            AND (
                j.group_key IS NULL
                OR NOT EXISTS (
                    SELECT 1
                    FROM readpast_job AS g WITH (READCOMMITTEDLOCK, INDEX (ix_readpast_job_group))
                    WHERE g.queue = j.queue
                        AND g.group_key IS NOT NULL
                        AND g.group_key = j.group_key
                        AND (g.status IN (1, 2) OR (g.status IN (0, 6) AND g.group_seq < j.group_seq))
                )
            )
        ORDER BY j.priority DESC, j.due_at ASC, j.id ASC;
    END;
    SET @pos = @pos + 1;
END;

-- the claim: each key's first job in walk order, then each key's second, up to the room
INSERT INTO @picked (id, k, pos)
SELECT TOP (ISNULL(@room, 0))
    r.id,
    r.k,
    r.pos
FROM (
    SELECT
        l.id,
        l.k,
        l.pos,
        ROW_NUMBER() OVER (PARTITION BY l.k ORDER BY l.priority DESC, l.due_at ASC, l.id ASC) AS turn
    FROM @candidates AS l
) AS r
ORDER BY r.turn ASC, r.pos ASC;

-- include: fair_claim_update.sql

-- include: claim_slices.sql

-- the per-key window counts, for the keys whose jobs were claimed
IF @key_rate IS NOT NULL
BEGIN
    UPDATE r
    SET
        r.claims = CASE WHEN r.rate_window = @key_window THEN r.claims + c.n ELSE c.n END,
        r.rate_window = @key_window
    FROM readpast_key_rate AS r WITH (ROWLOCK, UPDLOCK)
    INNER JOIN (
        SELECT x.fairness_key AS k, COUNT(*) AS n
        FROM @claimed AS x
        GROUP BY x.fairness_key
    ) AS c ON r.queue = @queue AND r.fairness_key = c.k;

    INSERT INTO readpast_key_rate (queue, fairness_key, rate_window, claims)
    SELECT @queue, c.k, @key_window, c.n
    FROM (
        SELECT x.fairness_key AS k, COUNT(*) AS n
        FROM @claimed AS x
        GROUP BY x.fairness_key
    ) AS c
    WHERE NOT EXISTS (
        SELECT 1
        FROM readpast_key_rate AS h WITH (UPDLOCK, HOLDLOCK)
        WHERE h.queue = @queue
            AND h.fairness_key = c.k
    );
END;

-- the cursor: the last key served, else the last key walked
IF @n > 0
BEGIN
    UPDATE t
    SET t.fair_cursor = ISNULL(
        (SELECT TOP (1) p.k FROM @picked AS p ORDER BY p.pos DESC),
        (SELECT TOP (1) w.k FROM @walked AS w ORDER BY w.pos DESC)
    )
    FROM readpast_queue_tally AS t WITH (ROWLOCK, READPAST, INDEX (pk_readpast_queue_tally), FORCESEEK)
    WHERE t.queue = @queue;
END;

SELECT c.*
FROM @claimed AS c
ORDER BY c.priority DESC, c.due_at ASC, c.id ASC;
