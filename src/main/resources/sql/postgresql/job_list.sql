-- Browse jobs newest first (by id) across the hot, archive and dead-letter tables, with
-- optional filters; keyset pagination: :after is the last id of the previous page.
-- :statuses is a JSON array of status codes or NULL for all.
SELECT * FROM (
    SELECT j.id, j.queue, j.type, j.payload, j.tags, j.idempotency_key, j.priority, j.status,
           j.attempt, j.max_attempts, j.due_at, j.worker_id, j.lease_expires_at, j.heartbeat_at,
           j.progress, j.cancel_requested, j.last_error, CAST(NULL AS text) AS result,
           j.created_by, j.modified_by, j.created_at, j.started_at, j.updated_at,
           CAST(NULL AS timestamptz) AS finished_at, j.webhook_url, j.expires_at, j.group_key, j.traceparent, j.tracestate, j.fairness_key
    FROM readpast_job AS j
    WHERE (CAST(:after AS bigint) IS NULL OR j.id < CAST(:after AS bigint))
      AND (CAST(:queue AS text) IS NULL OR j.queue = :queue)
      AND (CAST(:type AS text) IS NULL OR j.type = :type)
      AND (CAST(:statuses AS jsonb) IS NULL OR CAST(:statuses AS jsonb) @> to_jsonb(j.status))
      AND (CAST(:tag AS text) IS NULL OR CAST(j.tags AS jsonb) @> jsonb_build_array(CAST(:tag AS text)))
    ORDER BY j.id DESC
    LIMIT :limit
) AS hot
UNION ALL
SELECT * FROM (
    SELECT a.id, a.queue, a.type, a.payload, a.tags, a.idempotency_key, a.priority, a.status,
           a.attempt, a.max_attempts, a.due_at, a.worker_id, CAST(NULL AS timestamptz), CAST(NULL AS timestamptz), a.progress, false,
           a.last_error, a.result, a.created_by, a.modified_by, a.created_at, a.started_at,
           a.updated_at, a.finished_at, a.webhook_url, CAST(NULL AS timestamptz), a.group_key, a.traceparent, a.tracestate, a.fairness_key
    FROM readpast_job_archive AS a
    WHERE (CAST(:after AS bigint) IS NULL OR a.id < CAST(:after AS bigint))
      AND (CAST(:queue AS text) IS NULL OR a.queue = :queue)
      AND (CAST(:type AS text) IS NULL OR a.type = :type)
      AND (CAST(:statuses AS jsonb) IS NULL OR CAST(:statuses AS jsonb) @> to_jsonb(a.status))
      AND (CAST(:tag AS text) IS NULL OR CAST(a.tags AS jsonb) @> jsonb_build_array(CAST(:tag AS text)))
    ORDER BY a.id DESC
    LIMIT :limit
) AS archived
UNION ALL
SELECT * FROM (
    SELECT d.id, d.queue, d.type, d.payload, d.tags, d.idempotency_key, d.priority, d.status,
           d.attempt, d.max_attempts, d.due_at, d.worker_id, CAST(NULL AS timestamptz), CAST(NULL AS timestamptz), d.progress, false,
           d.last_error, d.result, d.created_by, d.modified_by, d.created_at, d.started_at,
           d.updated_at, d.finished_at, d.webhook_url, CAST(NULL AS timestamptz), d.group_key, d.traceparent, d.tracestate, d.fairness_key
    FROM readpast_job_dead AS d
    WHERE (CAST(:after AS bigint) IS NULL OR d.id < CAST(:after AS bigint))
      AND (CAST(:queue AS text) IS NULL OR d.queue = :queue)
      AND (CAST(:type AS text) IS NULL OR d.type = :type)
      AND (CAST(:statuses AS jsonb) IS NULL OR CAST(:statuses AS jsonb) @> to_jsonb(d.status))
      AND (CAST(:tag AS text) IS NULL OR CAST(d.tags AS jsonb) @> jsonb_build_array(CAST(:tag AS text)))
    ORDER BY d.id DESC
    LIMIT :limit
) AS dead
ORDER BY id DESC
LIMIT :limit
