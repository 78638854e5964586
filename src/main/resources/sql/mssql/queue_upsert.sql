-- PUT /queues/NAME: create or replace the settings of the queue. No MERGE: UPDATE under
-- UPDLOCK, SERIALIZABLE (which also locks the key range when the row is missing, so two
-- first PUTs cannot both insert), and INSERT when no row was updated. Returns the name.
SET NOCOUNT ON;

-- the queue's tally row (V27: a fair queue's cursor, a rate-limited queue's window count, which
-- claims only update), created first, in a transaction of its own that commits before the queue
-- row is locked: so this write never waits for anything while it holds the queue row. Two first
-- writes of one queue may race for it (Babelfish takes no key-range locks): the second's
-- duplicate key is the row it wanted.
IF NOT EXISTS (SELECT 1 FROM readpast_queue_tally AS n WITH (NOLOCK) WHERE n.queue = @name)
BEGIN
    BEGIN TRY
        INSERT INTO readpast_queue_tally (queue) VALUES (@name);
    END TRY
    BEGIN CATCH
        IF ERROR_NUMBER() NOT IN (2601, 2627)
        BEGIN
            THROW;
        END;
    END CATCH;
    IF @@TRANCOUNT > 0
    BEGIN
        COMMIT TRANSACTION;
    END;
END;

SET XACT_ABORT ON;

UPDATE readpast_queue WITH (UPDLOCK, SERIALIZABLE)
SET
    max_workers = @max_workers,
    paused = @paused,
    active = @active,
    lease_seconds = @lease_seconds,
    max_attempts = @max_attempts,
    backoff_base_ms = @backoff_base_ms,
    backoff_cap_ms = @backoff_cap_ms,
    webhook_url = @webhook_url,
    rate_limit = @rate_limit,
    rate_period_ms = @rate_period_ms,
    fair = @fair,
    key_max_workers = @key_max_workers,
    key_rate_limit = @key_rate_limit,
    key_rate_period_ms = @key_rate_period_ms,
    delete_succeeded = @delete_succeeded,
    -- settings make a deleted queue a queue again
    deleted_at = NULL,
    deleted_job_id = NULL,
    updated_at = SYSUTCDATETIME()
WHERE name = @name;

IF @@ROWCOUNT = 0
BEGIN
    INSERT INTO readpast_queue (
        name, max_workers, paused, active, lease_seconds, max_attempts, backoff_base_ms,
        backoff_cap_ms, webhook_url, rate_limit, rate_period_ms, fair, key_max_workers, key_rate_limit,
        key_rate_period_ms, delete_succeeded, updated_at
    )
    VALUES (
        @name, @max_workers, @paused, @active, @lease_seconds,
        @max_attempts, @backoff_base_ms, @backoff_cap_ms, @webhook_url,
        @rate_limit, @rate_period_ms, @fair, @key_max_workers, @key_rate_limit,
        @key_rate_period_ms, @delete_succeeded, SYSUTCDATETIME()
    );
END;

SELECT q.name
FROM readpast_queue AS q
WHERE q.name = @name;
