-- Keys made through the admin API (POST /keys) live beside the generated first-start key:
-- where each came from, who made it, and its queue scope (a|b as in READPAST_API_KEYS; NULL =
-- every queue).
ALTER TABLE readpast_api_key ADD COLUMN queues text NULL;
ALTER TABLE readpast_api_key ADD COLUMN origin varchar(20) NOT NULL DEFAULT 'generated'
    CHECK (origin IN ('generated', 'api'));
ALTER TABLE readpast_api_key ADD COLUMN created_by varchar(200) NULL;
