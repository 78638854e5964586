-- The twin of PostgreSQL's V21: a queue's choice for its succeeded jobs (PUT /queues/NAME
-- onSuccess). 0 keeps them in the archive until retention deletes them (the default); 1 deletes
-- them when they complete, with no archive copy (jobs of a batch and jobs others wait on are
-- archived all the same).
ALTER TABLE readpast_queue ADD delete_succeeded bit NOT NULL
    CONSTRAINT df_readpast_queue_delete_succeeded DEFAULT 0;
