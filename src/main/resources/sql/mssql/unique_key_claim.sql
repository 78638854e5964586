-- uniqueFor: takes a uniqueness key for @unique_for_ms (bigint, split into seconds and
-- milliseconds for DATEADD), unless another job holds it and its window has not run out
-- (@force takes it anyway: its holder is gone). No MERGE: an UPDATE of an expired (or forced)
-- row under UPDLOCK, HOLDLOCK (which also locks the key range when the row is missing, so two
-- enqueues with the same key serialise here), then an INSERT guarded by NOT EXISTS; the
-- primary key stays the backstop (2627, retried by the caller). Returns the key when this call
-- took it; nothing when it is held (the caller reads the holder with unique_key_get).
SET NOCOUNT ON;
SET XACT_ABORT ON;

DECLARE @taken TABLE (unique_key nvarchar(210) NOT NULL);

DECLARE @until datetime2(6) = DATEADD(
    SECOND,
    CAST(@unique_for_ms / 1000 AS int),
    DATEADD(MILLISECOND, CAST(@unique_for_ms % 1000 AS int), SYSUTCDATETIME())
);

UPDATE k
SET
    k.job_id = NULL,
    k.expires_at = @until,
    k.created_at = SYSUTCDATETIME()
OUTPUT inserted.unique_key INTO @taken (unique_key)
FROM readpast_unique_key AS k WITH (UPDLOCK, HOLDLOCK, ROWLOCK)
WHERE k.unique_key = @unique_key
    AND (k.expires_at <= SYSUTCDATETIME() OR @force = 1);

IF NOT EXISTS (SELECT 1 FROM @taken)
BEGIN
    INSERT INTO readpast_unique_key (unique_key, job_id, expires_at)
    OUTPUT inserted.unique_key INTO @taken (unique_key)
    SELECT
        @unique_key,
        NULL,
        @until
    WHERE NOT EXISTS (
        SELECT 1
        FROM readpast_unique_key AS h WITH (UPDLOCK, HOLDLOCK)
        WHERE h.unique_key = @unique_key
    );
END;

SELECT t.unique_key
FROM @taken AS t;
