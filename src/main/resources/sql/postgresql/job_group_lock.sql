-- Ordered groups: serialises enqueues (and requeues) into one group until the transaction
-- ends, so that the group's jobs become visible in the order of their group_seq, drawn under
-- this lock. A transaction-scoped advisory lock on (Readpast's class id, hash of queue and
-- group key); two groups with the same hash only share the wait.
SELECT pg_advisory_xact_lock(1380993874, hashtext(:queue || chr(31) || :group_key))
