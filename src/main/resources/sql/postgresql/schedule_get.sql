-- One schedule.
SELECT s.* FROM readpast_schedule AS s WHERE s.name = :name
