-- The jobs a new job names in dependsOn (:ids, a JSON array) that are still in the hot table,
-- marked as having dependents and locked to the end of the transaction: none moves before the
-- new job's edges are in, and the statement that moves one later settles them. Waits for the
-- rows (a parent being completed now is found gone once it commits, and then
-- job_dep_finished_parents finds it finished).
UPDATE readpast_job AS j
SET has_dependents = true
WHERE j.id IN (SELECT CAST(x AS bigint) FROM jsonb_array_elements_text(CAST(:ids AS jsonb)) AS x)
RETURNING j.id, j.status
