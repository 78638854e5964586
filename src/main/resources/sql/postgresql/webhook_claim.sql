-- The webhook sender's claim: up to :limit due deliveries (PENDING whose next attempt is due,
-- or SENDING whose lease expired: that sender died mid-send) become SENDING under a fresh
-- lease of :lease_seconds, attempt counted. Rows another sender holds are skipped, not
-- waited for; a row leased here is sent by no other instance until the lease expires.
UPDATE readpast_webhook AS w
SET status = 1,
    attempt = w.attempt + 1,
    lease_id = gen_random_uuid(),
    due_at = now() + CAST(:lease_seconds AS integer) * interval '1 second',
    updated_at = now()
FROM (
    SELECT d.id
    FROM readpast_webhook AS d
    WHERE d.status IN (0, 1)
      AND d.due_at <= now()
    ORDER BY d.due_at, d.id
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
) AS c
WHERE w.id = c.id
RETURNING w.*
