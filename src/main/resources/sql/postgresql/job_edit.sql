-- Edits a job nobody holds (PENDING, due or scheduled or backing off, or WAITING): its
-- priority, its due time (:run_at; :run_now makes it due at once) and its payload, each only
-- when given (NULL keeps it). One statement: the row is taken skip-locked, so a claim taking it
-- at this moment wins and the edit changes nothing (no row: the caller reads the job and
-- answers). A PENDING job whose due time moves ahead goes out of the claim index (6); one made
-- due goes into it (0); a WAITING job stays WAITING with its new due time, which applies when
-- its parents have settled.
WITH target AS (
    SELECT t.id FROM readpast_job AS t
    WHERE t.id = :id
      AND t.status IN (0, 6, 7)
    FOR UPDATE SKIP LOCKED
),
due AS (
    SELECT CASE WHEN CAST(:run_now AS boolean) THEN now() ELSE CAST(:run_at AS timestamptz) END AS at
)
UPDATE readpast_job AS j
SET priority = COALESCE(CAST(:priority AS integer), j.priority),
    due_at = COALESCE(due.at, j.due_at),
    status = CASE WHEN j.status = 7 THEN 7
                  WHEN COALESCE(due.at, j.due_at) > now() THEN 6
                  ELSE 0 END,
    payload = COALESCE(CAST(:payload AS text), j.payload),
    modified_by = :modified_by,
    updated_at = now()
FROM target, due
WHERE j.id = target.id
RETURNING j.*
