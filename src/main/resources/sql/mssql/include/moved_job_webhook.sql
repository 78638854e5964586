-- The webhook of each moved job (the job's URL, else its queue's), event @webhook_event, goes
-- into the outbox (readpast_webhook) in the same transaction as the move.
INSERT INTO readpast_webhook (job_id, queue, event, url)
SELECT
    m.id,
    m.queue,
    @webhook_event,
    COALESCE(m.webhook_url, q.webhook_url)
FROM @moved AS m
LEFT JOIN readpast_queue AS q ON m.queue = q.name
WHERE COALESCE(m.webhook_url, q.webhook_url) IS NOT NULL;
