-- A DEAD or CANCELLED job goes back to the hot table as PENDING, due now, attempts reset
-- (kept instead when :keep_attempts: the next claim counts on from them), keeping its id; :payload (JSON text) replaces the payload when given,
-- :queue (an existing queue, the caller checked it) its queue. Its errors stay: the
-- history of earlier attempts; so do its own time limit and retry backoff. A grouped job goes to the end of its group: a new group_seq
-- (the caller holds the group's lock, job_group_lock). A job of a batch stays in it (batch_id
-- kept): the caller holds the batch's lock and counts the job there again (docs/batches.md).
WITH from_dead AS (
    DELETE FROM readpast_job_dead WHERE id = :id RETURNING *
),
from_archive AS (
    DELETE FROM readpast_job_archive WHERE id = :id AND status = 5 RETURNING *
),
source AS (
    SELECT * FROM from_dead
    UNION ALL
    SELECT * FROM from_archive
)
INSERT INTO readpast_job (
    id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
    due_at, last_error, errors, created_by, modified_by, created_at, updated_at, webhook_url, group_key, traceparent, tracestate, fairness_key,
    group_seq, batch_id, timeout_seconds, retry_policy
)
SELECT id, COALESCE(CAST(:queue AS varchar(200)), queue), type, COALESCE(:payload, payload), tags, idempotency_key, priority, 0,
       CASE WHEN CAST(:keep_attempts AS boolean) THEN attempt ELSE 0 END,
       max_attempts, now(), last_error, errors, created_by, :modified_by, created_at, now(), webhook_url, group_key, traceparent, tracestate, fairness_key,
       CASE WHEN group_key IS NULL THEN NULL ELSE nextval('readpast_job_group_seq') END, batch_id, timeout_seconds, retry_policy
FROM source
RETURNING *
