-- The twin of PostgreSQL's V19: how many keys the queue's last fair claim walked, from which
-- PostgreSQL's job_claim_fair sizes each key's share before it meets the keys. SQL Server's
-- job_claim_fair walks the keys first and counts them, and does not read it; its keys already
-- compare as binary (Latin1_General_100_BIN2), and its indexes stay as they are.
ALTER TABLE readpast_queue ADD fair_keys int NULL;
