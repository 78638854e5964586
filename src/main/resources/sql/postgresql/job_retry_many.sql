-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- Failures with attempts left, many in one statement (POST /jobs/{id}/fail and POST /jobs/fail
-- merged, readpast.merging.acks), each as job_retry does for its holder: back to PENDING, due
-- after its delay_ms (stored as 0 when due at once, else 6, scheduled), its error as last_error
-- and appended to errors (the last :keep_errors attempts' errors). :items is a JSON array of
-- {"id": number, "lease_id": UUID string, "error": text, "delay_ms": number}. Only rows whose
-- lease is held (and still runs) and whose cancellation was not requested change (the caller
-- settles the others alone); an item repeated with the same id and lease id counts once (the
-- first one). The rows are locked in id order, so that two batches over the same jobs never wait
-- on each other in a cycle. Returns each retried job and retried_lease, the lease it failed under
-- (the job's own lease is cleared).
WITH item AS (
    SELECT DISTINCT ON (i.id, i.lease_id)
        i.id,
        i.lease_id,
        i.error,
        i.delay_ms
    FROM (
        SELECT
            CAST(e.value ->> 'id' AS bigint) AS id,
            CAST(e.value ->> 'lease_id' AS uuid) AS lease_id,
            e.value ->> 'error' AS error,
            CAST(e.value ->> 'delay_ms' AS bigint) AS delay_ms,
            e.n
        FROM jsonb_array_elements(CAST(:items AS jsonb)) WITH ORDINALITY AS e(value, n)
    ) AS i
    ORDER BY i.id, i.lease_id, i.n
),
held AS (
    SELECT j.id, item.lease_id, item.error, item.delay_ms
    FROM readpast_job AS j
    INNER JOIN item ON j.id = item.id AND j.lease_id = item.lease_id
    WHERE j.status IN (1, 2)
      -- the lease still runs (database clock): an expired one is the sweeper's
      AND j.lease_expires_at > now()
      AND NOT j.cancel_requested
    ORDER BY j.id
    FOR UPDATE OF j
)
UPDATE readpast_job AS j
SET status = CASE WHEN h.delay_ms > 0 THEN 6 ELSE 0 END,
    due_at = now() + h.delay_ms * interval '1 millisecond',
    worker_id = NULL,
    lease_id = NULL,
    lease_seconds = NULL,
    lease_expires_at = NULL,
    heartbeat_at = NULL,
    last_error = h.error,
    errors =
    -- include: errors_appended.sql
    -- with of: j
    -- with error: h.error
    ,
    modified_by = COALESCE(:modified_by, j.modified_by),
    updated_at = now()
FROM held AS h
WHERE j.id = h.id
RETURNING j.*, h.lease_id AS retried_lease
