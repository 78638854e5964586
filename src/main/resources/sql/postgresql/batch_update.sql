-- Writes a batch's counts and state as the caller decided them under batch_lock's row lock.
-- The times come from the database clock: :close sets closed_at, :finish finished_at, :fire
-- fired_at, :cancel cancelled_at, each once; :reopen clears finished_at (a requeued job of the
-- batch counts again: the batch is not finished until that job finishes again; fired_at stays,
-- a batch fires once).
UPDATE readpast_batch
SET total = :total,
    succeeded = :succeeded,
    dead = :dead,
    cancelled = :cancelled,
    queues = :queues,
    closed = closed OR CAST(:close AS boolean),
    closed_at = CASE WHEN closed_at IS NULL AND CAST(:close AS boolean) THEN now() ELSE closed_at END,
    finished_at = CASE WHEN CAST(:reopen AS boolean) THEN NULL
                       WHEN finished_at IS NULL AND CAST(:finish AS boolean) THEN now() ELSE finished_at END,
    fired_at = CASE WHEN fired_at IS NULL AND CAST(:fire AS boolean) THEN now() ELSE fired_at END,
    cancelled_at = CASE WHEN cancelled_at IS NULL AND CAST(:cancel AS boolean) THEN now() ELSE cancelled_at END,
    callback_job_id = COALESCE(CAST(:callback_job_id AS bigint), callback_job_id),
    updated_at = now()
WHERE id = :id
RETURNING *
