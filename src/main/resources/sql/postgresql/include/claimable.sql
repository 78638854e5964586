-- What makes a due pending row of readpast_job (alias j) claimable, beyond its queue, status and
-- due time: the part of the WHERE clause that job_claim, job_ack_claim and job_claim_fair share
-- in the scans that lock the rows they lease (each line here begins with AND).
-- expiresAt: never start after it (the expiry sweeper moves such jobs to DEAD)
AND (j.expires_at IS NULL OR j.expires_at > now())
-- a claim for some job types only (:types, a JSON array; NULL: every type)
AND (CAST(:types AS jsonb) IS NULL
     OR j.type IN (SELECT jsonb_array_elements_text(CAST(:types AS jsonb))))
-- ordered groups: a grouped job waits while a job of its group is LEASED or PROCESSING, or one
-- PENDING comes before it (group_seq: enqueue order)
AND (j.group_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM readpast_job AS g
    WHERE g.queue = j.queue AND g.group_key = j.group_key
      AND (g.status IN (1, 2) OR (g.status IN (0, 6) AND g.group_seq < j.group_seq))))
