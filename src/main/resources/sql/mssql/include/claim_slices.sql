-- After the claim's write (include/claimers.sql): each claimed row, ranked in claim order
-- (priority, due time, id), goes to the claim whose slice holds its rank. The rows of the first
-- claim are done; the others' worker and lease length are written by primary-key seek on rows
-- this batch's write already holds (ROWLOCK, FORCESEEK; nothing is waited for), and @claimed
-- follows. With one claim (the usual case) no row is written.
UPDATE c
SET c.claimer = s.n
FROM @claimed AS c
INNER JOIN (
    SELECT
        k.id,
        ROW_NUMBER() OVER (ORDER BY k.priority DESC, k.due_at ASC, k.id ASC) AS rn
    FROM @claimed AS k
) AS r ON c.id = r.id
INNER JOIN @claim_slices AS s ON r.rn > s.lo AND r.rn <= s.hi;

UPDATE t
SET
    t.worker_id = s.worker_id,
    t.lease_seconds = ISNULL(
        s.lease_seconds,
        ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = t.queue), @default_lease_seconds)
    ),
    -- a job with timeoutSeconds: its lease never runs past its deadline
    t.lease_expires_at = DATEADD(
        SECOND,
        CASE
            WHEN t.timeout_seconds < ISNULL(
                s.lease_seconds,
                ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = t.queue), @default_lease_seconds)
            ) THEN t.timeout_seconds
            ELSE ISNULL(
                s.lease_seconds,
                ISNULL((SELECT e.lease_seconds FROM @eligible AS e WHERE e.name = t.queue), @default_lease_seconds)
            )
        END,
        t.updated_at
    )
FROM readpast_job AS t WITH (ROWLOCK, FORCESEEK)
INNER JOIN @claimed AS c ON t.id = c.id
INNER JOIN @claim_slices AS s ON c.claimer = s.n
WHERE c.claimer <> (SELECT TOP (1) f.n FROM @claim_slices AS f ORDER BY f.lo ASC);

UPDATE c
SET
    c.worker_id = t.worker_id,
    c.lease_seconds = t.lease_seconds,
    c.lease_expires_at = t.lease_expires_at
FROM @claimed AS c
INNER JOIN readpast_job AS t WITH (ROWLOCK, FORCESEEK) ON t.id = c.id
WHERE c.claimer <> (SELECT TOP (1) f.n FROM @claim_slices AS f ORDER BY f.lo ASC);
