-- Deletes a schedule and the record of its fired slots (jobs it enqueued stay). Returns the name.
WITH fires AS (
    DELETE FROM readpast_schedule_fire WHERE schedule_name = :name
)
DELETE FROM readpast_schedule WHERE name = :name
RETURNING name
