-- Fair queues claimed at less cost (docs/fairness.md#performance).
--
-- The keyed index is made again below, with its fixed-width first column: not rebuilt for the
-- collation first.
DROP INDEX ix_readpast_job_fair;

-- Fairness keys compare byte by byte (COLLATE "C": UTF-8 byte order is code point order), as
-- SQL Server compares them (Latin1_General_100_BIN2). A fair claim compares keys at every
-- index tuple it passes; under the database's own collation each comparison went through the
-- locale's strcoll.
ALTER TABLE readpast_job ALTER COLUMN fairness_key TYPE varchar(200) COLLATE "C";
ALTER TABLE readpast_job_archive ALTER COLUMN fairness_key TYPE varchar(200) COLLATE "C";
ALTER TABLE readpast_job_dead ALTER COLUMN fairness_key TYPE varchar(200) COLLATE "C";
ALTER TABLE readpast_queue ALTER COLUMN fair_cursor TYPE varchar(200) COLLATE "C";
ALTER TABLE readpast_key_rate ALTER COLUMN fairness_key TYPE varchar(200) COLLATE "C";

-- The keyed index (a fair claim's walk: one descent per key, which reads the rest of its leaf
-- page) leads with the queue's name as a fixed-width uuid (its MD5), so that every entry the walk
-- passes compares a 16-byte value and finds the key at a fixed offset, where a leading varchar
-- left every later column's place to be worked out entry by entry. The statements name the queue
-- both ways: the uuid for the index, and the name itself, checked on the row (two names with one
-- digest would never mix).
CREATE INDEX ix_readpast_job_fair ON readpast_job (CAST(md5(queue) AS uuid), fairness_key, priority DESC, due_at, id)
    WHERE status = 0 AND fairness_key IS NOT NULL;

-- The jobs at work: one index, by queue (maxWorkers counts its entries), with each job's
-- fairness key carried along (keyMaxWorkers counts a fair queue's entries by key, from the index
-- alone). A claimed job of a fair queue was written into two indexes (readpast_job_active and
-- ix_readpast_job_fair_active, whose entries spread over every key of the queue and set off
-- more page clean-ups), where a plain claim writes one: a fair claim now writes what a plain one
-- writes. (An included column is not a key: entries of one queue stay in insertion order.)
DROP INDEX ix_readpast_job_fair_active;
DROP INDEX readpast_job_active;
CREATE INDEX readpast_job_active ON readpast_job (queue) INCLUDE (fairness_key) WHERE status IN (1, 2);

-- A queue row can change at every claim (a fair queue's cursor, a rate-limited queue's window
-- count), and every claim reads the table: pages kept nine-tenths free are pruned of dead row
-- versions at nearly every visit, so no claim steps through a long chain of them.
ALTER TABLE readpast_queue SET (fillfactor = 10);

-- How many keys the queue's last fair claim walked: the next claim sizes each key's share of
-- it from this (job_claim_fair), before it knows how many keys it will meet.
ALTER TABLE readpast_queue ADD COLUMN fair_keys integer NULL;
