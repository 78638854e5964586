-- Keys made through the admin API (POST /keys) live beside the generated first-start key:
-- where each came from, who made it, and its queue scope (a|b as in READPAST_API_KEYS; NULL =
-- every queue).
ALTER TABLE readpast_api_key ADD queues nvarchar(max) NULL;
ALTER TABLE readpast_api_key ADD origin nvarchar(20) NOT NULL
CONSTRAINT df_readpast_api_key_origin DEFAULT N'generated'
CONSTRAINT ck_readpast_api_key_origin CHECK (origin IN (N'generated', N'api'));
ALTER TABLE readpast_api_key ADD created_by nvarchar(200) NULL;
