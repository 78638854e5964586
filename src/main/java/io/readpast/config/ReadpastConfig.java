package io.readpast.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Optional;

/** Readpast's own settings ({@code readpast.*}); README "Configuration" lists them. */
@ConfigMapping(prefix = "readpast")
public interface ReadpastConfig {

    Db db();

    Defaults defaults();

    Limits limits();

    Sweeper sweeper();

    Upkeep upkeep();

    Merging merging();

    /**
     * What the broker merges for its clients (docs/performance.md): requests of one kind that
     * arrive while a statement of theirs is in flight go together into the next statement, each
     * answered on its own once that statement committed. Each kind can be turned off.
     */
    interface Merging {
        /** READPAST_MERGING_ENQUEUES: POST /jobs and /jobs/batch into one multi-row insert. */
        @WithDefault("true")
        boolean enqueues();

        /** READPAST_MERGING_CLAIMS: claims (and acks-and-claims) of the same queues and types. */
        @WithDefault("true")
        boolean claims();

        /** READPAST_MERGING_ACKS: completions (batch and single), releases, failures' retries and heartbeats, per kind and key. */
        @WithDefault("true")
        boolean acks();

        /**
         * READPAST_MERGING_LANES: statements of one kind (enqueues, acks) in flight at once per
         * instance; requests wait and merge only while every lane is busy. Claims use
         * readpast.db.claim-concurrency.
         */
        @WithDefault("2")
        int lanes();
    }

    /** Hot-table upkeep (PostgreSQL): README "Configuration". */
    interface Upkeep {
        /**
         * READPAST_UPKEEP_VACUUM_AFTER: after this many claims and batch acknowledgements on
         * this instance, look whether the hot table holds at least as many dead row versions and
         * VACUUM it if so (one instance at a time). 0 turns the upkeep off (leave it to
         * autovacuum). SQL Server needs none.
         */
        @WithDefault("10000")
        long vacuumAfter();
    }

    Retention retention();

    Dependencies dependencies();

    /** Jobs that wait for others (docs/batches.md). */
    interface Dependencies {
        /**
         * A WAITING job whose parents have not all settled this long after it was enqueued
         * expires: it moves to the dead letters (DEAD) and its dependants and batch settle as
         * for any DEAD job. Absent: a job waits as long as its parents take.
         */
        Optional<Duration> waitLimit();
    }

    Auth auth();

    Embedded embedded();

    Metrics metrics();

    /** OpenTelemetry export (read by TracingConfigSourceFactory before start-up). */
    Otlp otlp();

    Otel otel();

    interface Otlp {
        /** READPAST_OTLP_ENDPOINT: the OTLP collector that gets the broker's spans; absent: no export. */
        Optional<String> endpoint();
    }

    interface Otel {
        /** true: record and export spans with Quarkus's own quarkus.otel.* settings. */
        @WithDefault("false")
        boolean enabled();
    }

    Schedules schedules();

    Webhooks webhooks();

    /** Completion webhooks (README "Webhooks"). */
    interface Webhooks {
        /**
         * READPAST_WEBHOOK_SECRET: the HMAC-SHA256 key that signs every delivery. Without it,
         * webhook URLs are refused (400) and nothing is sent.
         */
        Optional<String> secret();

        /**
         * READPAST_WEBHOOK_ALLOWED_HOSTS: comma-separated host names webhooks may target
         * ({@code *.example.com} matches subdomains). Absent: any host.
         */
        Optional<java.util.List<String>> allowedHosts();

        /** Deliveries claimed (and sent in parallel) per round. */
        @WithDefault("20")
        int batch();

        /** Attempts before a delivery is DEAD. */
        @WithDefault("10")
        int maxAttempts();

        @WithDefault("PT10S")
        Duration backoffBase();

        @WithDefault("PT1H")
        Duration backoffCap();

        /** How long one POST may take (connect and answer). */
        @WithDefault("PT10S")
        Duration timeout();

        /** A sender's lease on a delivery it is sending; must exceed the timeout. */
        @WithDefault("60")
        int leaseSeconds();

        /** Delivered rows are kept this long. */
        @WithDefault("P7D")
        Duration deliveredRetention();

        /** DEAD rows are kept this long. */
        @WithDefault("P30D")
        Duration deadRetention();
    }

    /** Recurring schedules (README "Schedules"). */
    interface Schedules {
        /** Due schedules handled per pass. */
        @WithDefault("100")
        int batch();

        /** Most missed slots one schedule with catchUp ALL fires per pass (the rest follow in the next passes). */
        @WithDefault("100")
        int catchUpMax();

        /** With catchUp NONE, a slot seen later than this after its time is skipped. */
        @WithDefault("PT1M")
        Duration misfireGrace();

        /** Records of fired slots are kept this long (then deleted by the housekeeping task). */
        @WithDefault("P7D")
        Duration fireRetention();
    }

    interface Metrics {
        /** How often each instance refreshes the per-queue depth and lag gauges (one statement). */
        @WithDefault("15s")
        String refresh();
    }

    /** The embedded PostgreSQL used when READPAST_DB_URL is not set (for trying out; tests). */
    interface Embedded {
        /** READPAST_EMBEDDED=false makes a missing READPAST_DB_URL a start-up error instead. */
        @WithDefault("true")
        boolean enabled();

        /** Where its data lives, kept across restarts. */
        @WithDefault("readpast-data")
        String dataDir();

        /** Wipe the data directory at start (the test suite does). */
        @WithDefault("false")
        boolean clean();

        /**
         * READPAST_EMBEDDED_DURABLE: fsync and synchronous_commit on, so that committed jobs
         * survive a crash. false only for throwaway data (the test suite).
         */
        @WithDefault("true")
        boolean durable();
    }

    /** API keys (README "Security"). */
    interface Auth {
        /** READPAST_AUTH_ENABLED: false turns authentication off (with a warning at start-up). */
        @WithDefault("true")
        boolean enabled();

        /** READPAST_API_KEYS: comma-separated {@code name:role[+role]:sha256hex[:queues=a|b]}. */
        Optional<String> keys();

        /** READPAST_API_KEYS_FILE: a file with more keys in the same format (one per line or comma-separated). */
        Optional<String> keysFile();

        /** How often each instance re-reads the stored keys (generated, made with POST /keys). */
        @WithDefault("5s")
        String refresh();
    }

    /** Deploy-time database: READPAST_DB_URL / _USERNAME / _PASSWORD. */
    interface Db {
        Optional<String> url();

        Optional<String> username();

        Optional<String> password();

        /**
         * READPAST_DB_CLAIM_CONCURRENCY: claim statements this broker runs at once; further
         * claims wait their turn in the broker. Claimers that run together step over each
         * other's locked rows, so about the database's core count is the most that helps.
         */
        @WithDefault("4")
        int claimConcurrency();

        /**
         * READPAST_DB_FAILOVER_WAIT: how long a unit of work that met a failover (no connection
         * to a primary, the connection lost or a standby reached) is tried again before its
         * request is answered 503 with Retry-After. Only work that is sure not to have
         * committed is tried again: the failure came while connecting, or inside a transaction
         * before its commit. A little above the failover time measured with pg_auto_failover
         * (docs/high-availability.md); PT0S answers 503 at once.
         */
        @WithDefault("PT12S")
        java.time.Duration failoverWait();

        /**
         * For the test suite only (-Pmssql): with no URL, let Quarkus Dev Services start this
         * engine's database in a container ("mssql" or "postgresql") instead of the embedded
         * PostgreSQL. Needs a Docker engine.
         */
        Optional<String> devServices();
    }

    /** Used where neither the request nor the queue's row says otherwise. */
    interface Defaults {
        @WithDefault("30")
        int leaseSeconds();

        @WithDefault("5")
        int maxAttempts();

        @WithDefault("PT2S")
        Duration backoffBase();

        @WithDefault("PT1H")
        Duration backoffCap();
    }

    interface Limits {
        @WithDefault("1000")
        int claimMax();

        @WithDefault("1")
        int leaseMinSeconds();

        @WithDefault("86400")
        int leaseMaxSeconds();

        /** Most items in one batch enqueue or batch completion. */
        @WithDefault("1000")
        int batchMax();

        /** Largest page when browsing jobs or dead letters. */
        @WithDefault("500")
        int pageMax();

        /** Largest payload or result, in bytes of JSON text. */
        @WithDefault("1048576")
        int payloadMaxBytes();
    }

    interface Sweeper {
        /**
         * The longest the lease expiry task sleeps (e.g. 4s): it wakes when the earliest lease it knows
         * of runs out, and at the latest after this, to find leases other instances handed out.
         */
        @WithDefault("4s")
        String leaseInterval();

        @WithDefault("500")
        int leaseBatch();

        /**
         * The longest the feature clock sleeps (e.g. 30s): it wakes when the next schedule slot,
         * job expiry or webhook delivery is due, and at the latest after this, to find what other
         * instances set up (keep it below readpast.schedules.misfire-grace).
         */
        @WithDefault("30s")
        String timersInterval();
    }

    /** How long finished jobs are kept, and how the retention task works through them. */
    interface Retention {
        /** Archived SUCCEEDED and CANCELLED jobs older than this are deleted. */
        @WithDefault("P7D")
        Duration succeeded();

        /** DEAD jobs older than this are deleted. */
        @WithDefault("P30D")
        Duration dead();

        /**
         * Batches that finished longer ago than this are deleted, with their jobs still in the
         * archive or the dead letters (docs/batches.md).
         */
        @WithDefault("P30D")
        Duration batches();

        /** How often each instance runs the retention task. */
        @WithDefault("60s")
        String interval();

        /** Rows deleted per statement. */
        @WithDefault("1000")
        int batch();

        /**
         * How often each instance deletes old schedule fire records, run-out uniqueness keys,
         * finished webhook deliveries and fair queues' per-key window counts of passed windows
         * (one statement per pass).
         */
        @WithDefault("5m")
        String housekeepingInterval();
    }
}
