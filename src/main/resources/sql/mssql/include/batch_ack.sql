-- The batch acknowledgement (job_complete_many, and the ack part of job_ack_claim): every item
-- of @items whose lease is held moves from the hot table to the archive as SUCCEEDED (3), with
-- its result (or is deleted, when its queue's onSuccess is delete). @items is a JSON array of objects {"id": number, "lease_id": UUID string,
-- "result": JSON text or null}. With @linked = 0 (a bit: job_complete_many's parameter, a
-- local of job_ack_claim) a job of a batch (batch_id) or one that others wait on
-- (has_dependents) is left alone: the caller completes it with its settlement.
-- The items are parsed into a table variable first: id and lease id with JSON_VALUE (short
-- values; an id or lease id that does not convert matches nothing and is dropped), the result
-- with OPENJSON over the item, whose value column is nvarchar(max) (JSON_VALUE would cut a
-- result longer than 4000 characters to NULL). Items repeated with the same id and lease id
-- count once (the first one wins). The held jobs are locked by a guarded read (id, lease id,
-- status; a primary-key seek per item, FORCESEEK), moved (moved_job_delete.sql), archived with
-- their results, and their completion webhooks go into the outbox, all in one transaction.
DECLARE @item TABLE (
    id bigint NOT NULL,
    lease_id uniqueidentifier NOT NULL,
    result nvarchar(max) NULL,
    PRIMARY KEY (id, lease_id)
);
DECLARE @webhook_event nvarchar(20) = N'job.succeeded';
-- include: moved_job.sql

INSERT INTO @item (id, lease_id, result)
SELECT
    x.id,
    x.lease_id,
    x.result
FROM (
    SELECT
        k.id,
        k.lease_id,
        r.result,
        ROW_NUMBER() OVER (
            PARTITION BY k.id, k.lease_id
            ORDER BY CAST(i.[key] AS int)
        ) AS n
    FROM OPENJSON(@items) AS i
    CROSS APPLY (
        SELECT
            TRY_CONVERT(bigint, JSON_VALUE(i.value, '$.id')) AS id,
            TRY_CONVERT(uniqueidentifier, JSON_VALUE(i.value, '$.lease_id')) AS lease_id
    ) AS k
    OUTER APPLY (
        SELECT TOP (1) f.value AS result
        FROM OPENJSON(i.value) AS f
        WHERE f.[key] = N'result'
    ) AS r
) AS x
WHERE x.id IS NOT NULL
    AND x.lease_id IS NOT NULL
    AND x.n = 1;

INSERT INTO @target (id)
SELECT j.id
FROM readpast_job AS j WITH (UPDLOCK, ROWLOCK, FORCESEEK)
INNER JOIN @item AS i
    ON
        j.id = i.id
        AND j.lease_id = i.lease_id
WHERE j.status IN (1, 2)
    -- the lease still runs (database clock): an expired one is lost, swept or not
    AND j.lease_expires_at > SYSUTCDATETIME()
    -- a job of a batch, or one that others wait on, is completed with its settlement (@linked = 1,
    -- job_complete_many in the caller's transaction); job_ack_claim declares @linked = 0
    AND (@linked = 1 OR (j.batch_id IS NULL AND j.has_dependents = 0));

-- include: moved_job_delete.sql

-- Kept in the archive unless its queue deletes succeeded jobs (onSuccess delete); a job of a
-- batch, or one that others wait on, is kept all the same (its batch and dependants read it).
-- The queue's setting is read without a lock (NOLOCK): this statement holds the job rows, and a
-- claim holds queue rows while it waits for job rows (N1); while a PUT of the queue is in
-- flight either value is right.
-- include: moved_into.sql
-- with into: readpast_job_archive
-- with from: @moved AS m INNER JOIN @item AS i ON m.id = i.id AND m.lease_id = i.lease_id
-- with status: 3
-- with result: i.result
-- with modified_by: COALESCE(@modified_by, m.modified_by)
-- with where: WHERE m.batch_id IS NOT NULL OR m.has_dependents = 1 OR NOT EXISTS (SELECT 1 FROM readpast_queue AS q WITH (NOLOCK) WHERE q.name = m.queue AND q.delete_succeeded = 1)
;

-- include: moved_job_webhook.sql
