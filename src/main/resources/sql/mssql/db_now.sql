-- The database clock: schedule fire times are computed from it, never from a broker's clock.
SET NOCOUNT ON;

SELECT SYSUTCDATETIME() AS now;
