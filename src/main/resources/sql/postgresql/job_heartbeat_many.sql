-- readpast: generic-plan (one cached plan: StatementCatalog.PG_GENERIC_PLAN says why)
-- Extends many leases in one statement (POST /jobs/heartbeat), each as job_heartbeat does: the
-- first heartbeat moves LEASED to PROCESSING. :items is a JSON array of {"id": number,
-- "lease_id": UUID string, "lease_seconds": integer or null (keep the current length),
-- "progress": a JSON object or null (keep the previous one), stored as its text}. Only rows
-- whose lease is held change;
-- an item repeated with the same id and lease id counts once (the first one). The rows are
-- locked in id order, so that two batches over the same jobs never wait on each other in a
-- cycle. Returns id, lease_id, lease_expires_at and cancel_requested of each extended lease.
WITH item AS (
    SELECT DISTINCT ON (i.id, i.lease_id)
        i.id,
        i.lease_id,
        i.lease_seconds,
        i.progress
    FROM (
        SELECT
            CAST(e.value ->> 'id' AS bigint) AS id,
            CAST(e.value ->> 'lease_id' AS uuid) AS lease_id,
            CAST(e.value ->> 'lease_seconds' AS integer) AS lease_seconds,
            e.value ->> 'progress' AS progress,
            e.n
        FROM jsonb_array_elements(CAST(:items AS jsonb)) WITH ORDINALITY AS e(value, n)
    ) AS i
    ORDER BY i.id, i.lease_id, i.n
),
held AS (
    SELECT j.id, item.lease_seconds, item.progress
    FROM readpast_job AS j
    INNER JOIN item ON j.id = item.id AND j.lease_id = item.lease_id
    WHERE j.status IN (1, 2)
      -- the lease still runs (database clock): an expired one is lost, swept or not
      AND j.lease_expires_at > now()
    ORDER BY j.id
    FOR UPDATE OF j
)
UPDATE readpast_job AS j
SET status = 2,
    started_at = COALESCE(j.started_at, now()),
    heartbeat_at = now(),
    lease_seconds = COALESCE(h.lease_seconds, j.lease_seconds),
    -- never past the job's deadline (timeoutSeconds, set by the claim; LEAST skips a NULL)
    lease_expires_at = LEAST(now() + COALESCE(h.lease_seconds, j.lease_seconds) * interval '1 second', j.deadline_at),
    progress = COALESCE(h.progress, j.progress),
    updated_at = now()
FROM held AS h
WHERE j.id = h.id
RETURNING j.id, j.lease_id, j.lease_expires_at, j.cancel_requested
