-- A batch, its row locked to the end of the transaction: the caller decides from these
-- counts whether this change finishes or fires the batch (batch_update), and nobody else can
-- decide the same in between. Waits for the lock (UPDLOCK, no READPAST): settling never skips
-- a batch. READCOMMITTEDLOCK: under RCSI too the row read is the one the lock protects, not an
-- older version.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- include: batch_lock_row.sql
