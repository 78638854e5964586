-- After a claim on rate-limited queues, in the same transaction (which holds their rows'
-- locks): count the claimed jobs in each queue's current window (epoch-aligned, database
-- clock; a new window starts from zero). :counts is a JSON array of {"queue", "n"}.
UPDATE readpast_queue AS q
SET rate_window_count = CASE
        WHEN q.rate_window = CAST(floor(extract(epoch FROM now()) * 1000 / q.rate_period_ms) AS bigint)
        THEN q.rate_window_count + c.n
        ELSE c.n
    END,
    rate_window = CAST(floor(extract(epoch FROM now()) * 1000 / q.rate_period_ms) AS bigint)
FROM jsonb_to_recordset(CAST(:counts AS jsonb)) AS c (queue varchar(200), n integer)
WHERE q.name = c.queue
  AND q.rate_limit IS NOT NULL
RETURNING q.name
