-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- Gives many jobs back unworked in one statement (POST /jobs/release, and single releases merged,
-- readpast.merging.acks), each as job_release does: PENDING again, the attempt the claim counted
-- given back, its place in line kept; with a delay_ms > 0 due that long from now instead (stored
-- as 6, scheduled). :items is a JSON array of {"id": number, "lease_id": UUID string, "delay_ms":
-- number}. Only rows whose lease is held and whose cancellation was not requested change (the
-- caller cancels those instead); an item repeated with the same id and lease id counts once (the
-- first one). The rows are locked in id order, so that two batches over the same jobs never wait
-- on each other in a cycle. Returns each released job and released_lease, the lease it was
-- released from (the job's own lease is cleared).
WITH item AS (
    SELECT DISTINCT ON (i.id, i.lease_id)
        i.id,
        i.lease_id,
        i.delay_ms
    FROM (
        SELECT
            CAST(e.value ->> 'id' AS bigint) AS id,
            CAST(e.value ->> 'lease_id' AS uuid) AS lease_id,
            CAST(e.value ->> 'delay_ms' AS bigint) AS delay_ms,
            e.n
        FROM jsonb_array_elements(CAST(:items AS jsonb)) WITH ORDINALITY AS e(value, n)
    ) AS i
    ORDER BY i.id, i.lease_id, i.n
),
held AS (
    SELECT j.id, item.lease_id, item.delay_ms
    FROM readpast_job AS j
    INNER JOIN item ON j.id = item.id AND j.lease_id = item.lease_id
    WHERE j.status IN (1, 2)
      -- the lease still runs (database clock): an expired one is lost, swept or not
      AND j.lease_expires_at > now()
      AND NOT j.cancel_requested
    ORDER BY j.id
    FOR UPDATE OF j
)
UPDATE readpast_job AS j
SET status = CASE WHEN h.delay_ms > 0 THEN 6 ELSE 0 END,
    due_at = CASE WHEN h.delay_ms > 0 THEN now() + h.delay_ms * interval '1 millisecond' ELSE j.due_at END,
    attempt = GREATEST(j.attempt - 1, 0),
    worker_id = NULL,
    lease_id = NULL,
    lease_seconds = NULL,
    lease_expires_at = NULL,
    heartbeat_at = NULL,
    modified_by = COALESCE(:modified_by, j.modified_by),
    updated_at = now()
FROM held AS h
WHERE j.id = h.id
RETURNING j.*, h.lease_id AS released_lease
