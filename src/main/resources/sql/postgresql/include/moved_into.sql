-- A template (StatementCatalog): the moved jobs (slot from) inserted finished into slot into,
-- readpast_job_archive or readpast_job_dead, with finished_row.sql's slots.
INSERT INTO {{into}} (
    -- include: finished_columns.sql
)
-- include: finished_row.sql
