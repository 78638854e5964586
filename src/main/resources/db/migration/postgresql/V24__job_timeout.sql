-- Per-job time limits (timeoutSeconds, docs/api.md): timeout_seconds is the most a job may run,
-- counted from its claim across heartbeats; deadline_at is that instant for the current lease,
-- set by the claim. No lease (at claim or heartbeat) runs past deadline_at, so a job that
-- heartbeats forever still ends there and goes the way of an expired lease (error "timed out").
-- Neither is indexed: setting them keeps the claim's and the heartbeat's updates HOT.
ALTER TABLE readpast_job ADD COLUMN timeout_seconds integer NULL;
ALTER TABLE readpast_job ADD COLUMN deadline_at timestamptz NULL;
