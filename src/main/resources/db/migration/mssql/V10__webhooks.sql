-- Completion webhooks. A job (at enqueue) or its queue (PUT /queues) may name a URL; when the
-- job becomes SUCCEEDED or DEAD, the batch that moves it also writes a delivery row here, in
-- the same transaction (an outbox: no callback is lost when a broker dies after the commit,
-- and none is made up for a change that rolled back). A sender on every instance claims due
-- rows with a lease (UPDLOCK, READPAST), POSTs them, and records the outcome.
ALTER TABLE readpast_queue ADD webhook_url nvarchar(2000) NULL;
ALTER TABLE readpast_job ADD webhook_url nvarchar(2000) NULL;
ALTER TABLE readpast_job_archive ADD webhook_url nvarchar(2000) NULL;
ALTER TABLE readpast_job_dead ADD webhook_url nvarchar(2000) NULL;

-- status: 0 PENDING (due_at = next attempt), 1 SENDING (due_at = lease expiry: a sender that
-- died mid-send is replaced then), 2 DELIVERED, 3 DEAD (attempts used up; POST .../retry).
-- delivery_id is sent with every attempt (Readpast-Delivery) so that receivers can drop repeats.
CREATE TABLE readpast_webhook (
    id bigint IDENTITY (1, 1) NOT NULL CONSTRAINT pk_readpast_webhook PRIMARY KEY CLUSTERED,
    delivery_id uniqueidentifier NOT NULL CONSTRAINT df_readpast_webhook_delivery DEFAULT NEWID(),
    job_id bigint NOT NULL,
    queue nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    event nvarchar(20) NOT NULL,
    url nvarchar(2000) NOT NULL,
    status tinyint NOT NULL CONSTRAINT df_readpast_webhook_status DEFAULT 0,
    attempt int NOT NULL CONSTRAINT df_readpast_webhook_attempt DEFAULT 0,
    due_at datetime2(6) NOT NULL CONSTRAINT df_readpast_webhook_due DEFAULT SYSUTCDATETIME(),
    lease_id uniqueidentifier NULL,
    last_status int NULL,
    last_error nvarchar(max) NULL,
    created_at datetime2(6) NOT NULL CONSTRAINT df_readpast_webhook_created DEFAULT SYSUTCDATETIME(),
    updated_at datetime2(6) NOT NULL CONSTRAINT df_readpast_webhook_updated DEFAULT SYSUTCDATETIME(),
    delivered_at datetime2(6) NULL,
    CONSTRAINT ck_readpast_webhook_event CHECK (event IN (N'job.succeeded', N'job.dead')),
    CONSTRAINT ck_readpast_webhook_status CHECK (status IN (0, 1, 2, 3)),
    CONSTRAINT ck_readpast_webhook_lease CHECK (
        (status = 1 AND lease_id IS NOT NULL) OR (status <> 1 AND lease_id IS NULL)
    )
);
CREATE UNIQUE INDEX ux_readpast_webhook_delivery ON readpast_webhook (delivery_id);
-- The sender's claim: due rows still to send (literal filter, so that the claim can seek it).
CREATE INDEX ix_readpast_webhook_due ON readpast_webhook (due_at, id) WHERE status IN (0, 1);
-- Browsing by status, newest first; retention of delivered and dead rows.
CREATE INDEX ix_readpast_webhook_status ON readpast_webhook (status, id);
CREATE INDEX ix_readpast_webhook_updated ON readpast_webhook (updated_at) WHERE status IN (2, 3);
