-- A job wherever it lives. Hot rows carry their queue's backoff settings for the retry decision.
SELECT j.id, j.queue, j.type, j.payload, j.tags, j.idempotency_key, j.priority, j.status, j.attempt,
       j.max_attempts, j.due_at, j.worker_id, j.lease_id, j.lease_seconds, j.lease_expires_at,
       j.heartbeat_at, j.progress, j.cancel_requested, j.last_error, j.errors, CAST(NULL AS text) AS result,
       j.created_by, j.modified_by, j.created_at, j.started_at, j.updated_at,
       CAST(NULL AS timestamptz) AS finished_at, q.backoff_base_ms, q.backoff_cap_ms, j.webhook_url,
       j.expires_at, j.group_key, j.traceparent, j.tracestate, j.fairness_key, j.batch_id, j.has_dependents, j.deps_left,
       j.timeout_seconds, j.deadline_at, j.retry_policy
FROM readpast_job AS j
LEFT JOIN readpast_queue AS q ON q.name = j.queue
WHERE j.id = :id
UNION ALL
SELECT id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
       due_at, worker_id, lease_id, NULL, NULL, NULL, progress, false,
       last_error, errors, result, created_by, modified_by, created_at, started_at, updated_at, finished_at,
       NULL, NULL, webhook_url, CAST(NULL AS timestamptz), group_key, traceparent, tracestate, fairness_key, batch_id, has_dependents, 0,
       timeout_seconds, CAST(NULL AS timestamptz), retry_policy
FROM readpast_job_archive WHERE id = :id
UNION ALL
SELECT id, queue, type, payload, tags, idempotency_key, priority, status, attempt, max_attempts,
       due_at, worker_id, lease_id, NULL, NULL, NULL, progress, false,
       last_error, errors, result, created_by, modified_by, created_at, started_at, updated_at, finished_at,
       NULL, NULL, webhook_url, CAST(NULL AS timestamptz), group_key, traceparent, tracestate, fairness_key, batch_id, has_dependents, 0,
       timeout_seconds, CAST(NULL AS timestamptz), retry_policy
FROM readpast_job_dead WHERE id = :id
