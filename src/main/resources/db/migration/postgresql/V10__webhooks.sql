-- Completion webhooks. A job (at enqueue) or its queue (PUT /queues) may name a URL; when the
-- job becomes SUCCEEDED or DEAD, the statement that moves it also writes a delivery row here,
-- in the same transaction (an outbox: no callback is lost when a broker dies after the
-- commit, and none is made up for a change that rolled back). A sender on every instance
-- claims due rows with a lease (SKIP LOCKED), POSTs them, and records the outcome.
ALTER TABLE readpast_queue ADD COLUMN webhook_url varchar(2000) NULL;
ALTER TABLE readpast_job ADD COLUMN webhook_url varchar(2000) NULL;
ALTER TABLE readpast_job_archive ADD COLUMN webhook_url varchar(2000) NULL;
ALTER TABLE readpast_job_dead ADD COLUMN webhook_url varchar(2000) NULL;

-- status: 0 PENDING (due_at = next attempt), 1 SENDING (due_at = lease expiry: a sender that
-- died mid-send is replaced then), 2 DELIVERED, 3 DEAD (attempts used up; POST .../retry).
-- delivery_id is sent with every attempt (Readpast-Delivery) so that receivers can drop repeats.
CREATE TABLE readpast_webhook (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id   uuid NOT NULL DEFAULT gen_random_uuid(),
    job_id        bigint NOT NULL,
    queue         varchar(200) NOT NULL,
    event         varchar(20) NOT NULL CHECK (event IN ('job.succeeded', 'job.dead')),
    url           varchar(2000) NOT NULL,
    status        smallint NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2, 3)),
    attempt       integer NOT NULL DEFAULT 0,
    due_at        timestamptz NOT NULL DEFAULT now(),
    lease_id      uuid NULL,
    last_status   integer NULL,
    last_error    text NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    delivered_at  timestamptz NULL,
    CHECK ((status = 1) = (lease_id IS NOT NULL))
);
CREATE UNIQUE INDEX readpast_webhook_delivery ON readpast_webhook (delivery_id);
-- The sender's claim: due rows still to send.
CREATE INDEX readpast_webhook_due ON readpast_webhook (due_at) WHERE status IN (0, 1);
-- Browsing by status, newest first; retention of delivered and dead rows.
CREATE INDEX readpast_webhook_status ON readpast_webhook (status, id);
CREATE INDEX readpast_webhook_updated ON readpast_webhook (updated_at) WHERE status IN (2, 3);
