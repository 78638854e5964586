-- A queue's choice for its succeeded jobs (PUT /queues/{name} onSuccess): false keeps them in
-- the archive until retention deletes them (the default, as before); true deletes them when they
-- complete, in the completing statement, with no archive copy (jobs of a batch, and jobs others
-- wait on, are archived all the same: their batch and their dependants read them there).
ALTER TABLE readpast_queue ADD COLUMN delete_succeeded boolean NOT NULL DEFAULT false;
