-- The database clock: schedule fire times are computed from it, never from a broker's clock.
SELECT now() AS now
