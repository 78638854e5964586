-- Browse and search jobs newest first (by id) across the hot, archive and dead-letter tables;
-- keyset pagination: :after is the last id of the previous page. Every filter is optional
-- (NULL does not filter) and the same for GET /jobs and the bulk actions (JobFilter):
-- :statuses a JSON array of status codes; :tag a string element of tags; :error a substring of
-- the last error, any case; created and finished times as half-open ranges [after, before);
-- :payload a JSON object whose members the job's payload (an object) must all have, equal
-- (jsonb containment). The filter is written once, on the union: PostgreSQL pushes it into each
-- table's scan, and ORDER BY id DESC LIMIT reads the three primary keys newest first (a merge),
-- so a page stops as soon as it has :limit rows. Plain reads: never locks, never on the claim path.
SELECT u.* FROM (
    SELECT j.id, j.queue, j.type, j.payload, j.tags, j.idempotency_key, j.priority, j.status,
           j.attempt, j.max_attempts, j.due_at, j.worker_id, j.lease_expires_at, j.heartbeat_at,
           j.progress, j.cancel_requested, j.last_error, CAST(NULL AS text) AS result,
           j.created_by, j.modified_by, j.created_at, j.started_at, j.updated_at,
           CAST(NULL AS timestamptz) AS finished_at, j.webhook_url, j.expires_at, j.group_key,
           j.traceparent, j.tracestate, j.fairness_key, j.batch_id, j.timeout_seconds, j.deadline_at,
           j.retry_policy
    FROM readpast_job AS j
    UNION ALL
    SELECT a.id, a.queue, a.type, a.payload, a.tags, a.idempotency_key, a.priority, a.status,
           a.attempt, a.max_attempts, a.due_at, a.worker_id, CAST(NULL AS timestamptz),
           CAST(NULL AS timestamptz), a.progress, false, a.last_error, a.result, a.created_by,
           a.modified_by, a.created_at, a.started_at, a.updated_at, a.finished_at, a.webhook_url,
           CAST(NULL AS timestamptz), a.group_key, a.traceparent, a.tracestate, a.fairness_key,
           a.batch_id, a.timeout_seconds, CAST(NULL AS timestamptz),
           a.retry_policy
    FROM readpast_job_archive AS a
    UNION ALL
    SELECT d.id, d.queue, d.type, d.payload, d.tags, d.idempotency_key, d.priority, d.status,
           d.attempt, d.max_attempts, d.due_at, d.worker_id, CAST(NULL AS timestamptz),
           CAST(NULL AS timestamptz), d.progress, false, d.last_error, d.result, d.created_by,
           d.modified_by, d.created_at, d.started_at, d.updated_at, d.finished_at, d.webhook_url,
           CAST(NULL AS timestamptz), d.group_key, d.traceparent, d.tracestate, d.fairness_key,
           d.batch_id, d.timeout_seconds, CAST(NULL AS timestamptz),
           d.retry_policy
    FROM readpast_job_dead AS d
) AS u
WHERE (CAST(:after AS bigint) IS NULL OR u.id < CAST(:after AS bigint))
  AND (CAST(:queue AS text) IS NULL OR u.queue = :queue)
  AND (CAST(:type AS text) IS NULL OR u.type = :type)
  AND (CAST(:statuses AS jsonb) IS NULL OR CAST(:statuses AS jsonb) @> to_jsonb(u.status))
  AND (CAST(:tag AS text) IS NULL OR CAST(u.tags AS jsonb) @> jsonb_build_array(CAST(:tag AS text)))
  AND (CAST(:fairness_key AS text) IS NULL OR u.fairness_key = :fairness_key)
  AND (CAST(:group_key AS text) IS NULL OR u.group_key = :group_key)
  AND (CAST(:batch_id AS bigint) IS NULL OR u.batch_id = CAST(:batch_id AS bigint))
  AND (CAST(:error AS text) IS NULL OR strpos(lower(u.last_error), lower(CAST(:error AS text))) > 0)
  AND (CAST(:created_after AS timestamptz) IS NULL OR u.created_at >= CAST(:created_after AS timestamptz))
  AND (CAST(:created_before AS timestamptz) IS NULL OR u.created_at < CAST(:created_before AS timestamptz))
  AND (CAST(:finished_after AS timestamptz) IS NULL OR u.finished_at >= CAST(:finished_after AS timestamptz))
  AND (CAST(:finished_before AS timestamptz) IS NULL OR u.finished_at < CAST(:finished_before AS timestamptz))
  AND (CAST(:payload AS jsonb) IS NULL OR CAST(u.payload AS jsonb) @> CAST(:payload AS jsonb))
ORDER BY u.id DESC
LIMIT :limit
