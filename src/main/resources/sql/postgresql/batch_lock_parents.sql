-- The batches a new job names in dependsOn (:ids, a JSON array), marked as having dependents
-- and locked to the end of the transaction: none finishes before the job's edges are in,
-- and whichever finishes after sees them. Returns each one found, with its outcome so far.
UPDATE readpast_batch AS b
SET has_dependents = true
WHERE b.id IN (SELECT CAST(x AS bigint) FROM jsonb_array_elements_text(CAST(:ids AS jsonb)) AS x)
RETURNING b.id, b.finished_at, b.dead, b.cancelled
