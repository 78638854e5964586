package io.readpast.api.http;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.readpast.http.Problem;
import io.readpast.store.QueueRow;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;
import java.util.List;

/** Response bodies other than {@link JobView}. */
public final class Responses {

    private Responses() {
    }

    @Schema(description = "The jobs a claim leased, best first (priority, then due time); each carries its leaseId. "
            + "With 'ack' in the request, also the answer for each acknowledgement.")
    public record Claimed(
            @Schema(description = "0 to 'limit' jobs, status LEASED, each with a fresh leaseId; empty when nothing "
                    + "was claimable (at once, or at the end of waitSeconds).")
            List<JobView> jobs,
            @Schema(description = "Only in an empty answer, and only when some of the queues the claim named (or "
                    + "the key's scope) do not exist: no job was ever enqueued there and no settings were made. "
                    + "A claim on them finds nothing until that changes, so check the names. Absent otherwise.",
                    examples = "[\"emials\"]")
            @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_EMPTY)
            List<String> unknownQueues,
            @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
            @Schema(description = "Only when the request had 'ack': one answer per item, in request order, as "
                    + "POST /jobs/complete gives them (200 completed, also when it was completed earlier under "
                    + "the same lease; 400 invalid; 404 no such job; 409 lease not held).")
            List<ItemResult> acks) {

        Claimed(List<JobView> jobs) {
            this(jobs, null, null);
        }
    }

    /**
     * A job as {@code Prefer: return=minimal} answers it: its id and status only (documented as
     * a JobView whose other fields are absent, so that generated clients read either answer).
     */
    @RegisterForReflection
    public record Minimal(String id, io.readpast.core.JobStatus status) {
        public static Minimal of(io.readpast.store.JobRow r) {
            return new Minimal(Long.toString(r.id()), io.readpast.core.JobStatus.of(r));
        }
    }

    /** One answer of a batch: {@code status} as HTTP would give it, and the job or the problem. */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    @Schema(description = "The answer for one item of a batch.")
    @RegisterForReflection
    public record ItemResult(
            @Schema(description = "Position of the item in the request, from 0.", examples = "0")
            int index,
            @Schema(description = "The job id; absent when the item was invalid.", examples = "42")
            String id,
            @Schema(description = "As HTTP would give it for the item alone. Batch enqueue: 201 created, 200 an "
                    + "idempotency key matched a live job, 400 invalid, 403 queue outside the key's scope. Batch "
                    + "complete: 200 completed, 400 invalid, 404 no such job, 409 lease not held.",
                    enumeration = {"200", "201", "400", "403", "404", "409"}, examples = "201")
            int status,
            @Schema(description = "Batch enqueue, 200/201 only: the job (created, or the live one holding the "
                    + "idempotency key); absent with 'Prefer: return=minimal'.")
            JobView job,
            @Schema(description = "Only when the item failed: why, as a problem document.")
            Problem error) {
    }

    @Schema(description = "The answer to one item of a batch heartbeat, fail or release.")
    @RegisterForReflection
    public record LeaseItemResult(
            @Schema(description = "Position of the item in the request, from 0.", examples = "0")
            int index,
            @Schema(nullable = true, description = "The job id; null when the item was invalid.", examples = "42")
            String id,
            @Schema(description = "As HTTP would give it for the item alone: 200 done, 400 invalid, 404 no such job "
                    + "(or outside the key's queue scope), 409 lease not held.",
                    enumeration = {"200", "400", "404", "409"}, examples = "200")
            int status,
            @Schema(nullable = true, description = "200 only (else null): the job's state now. Heartbeat: PROCESSING. Fail: PENDING (to be "
                    + "retried), DEAD or CANCELLED. Release: PENDING or CANCELLED.", examples = "PROCESSING")
            String jobStatus,
            @Schema(nullable = true, description = "Heartbeat, 200 only (else null): when the extended lease runs out.")
            Instant leaseExpiresAt,
            @Schema(nullable = true, description = "Heartbeat, 200 only (else null): true when an operator asked to cancel the job: stop working on "
                    + "it and fail or release it.", examples = "false")
            Boolean cancelRequested,
            @Schema(nullable = true, description = "Only when the item failed (else null): why, as a problem document.")
            Problem error) {

        public static LeaseItemResult refused(ItemResult r) {
            return new LeaseItemResult(r.index(), r.id(), r.status(), null, null, null, r.error());
        }
    }

    @Schema(description = "The answers of a batch heartbeat, fail or release, one per item, in request order.")
    @RegisterForReflection
    public record LeaseBatchResult(
            @Schema(description = "Items with status 200.", examples = "2")
            int succeeded,
            @Schema(description = "Items with a 4xx status.", examples = "1")
            int failed,
            @Schema(description = "One answer per item, in request order.")
            List<LeaseItemResult> results) {
        public static LeaseBatchResult of(List<LeaseItemResult> results) {
            int ok = (int) results.stream().filter(r -> r.status() < 300).count();
            return new LeaseBatchResult(ok, results.size() - ok, results);
        }
    }

    @Schema(description = "The answers of a batch, one per item, in request order.")
    @RegisterForReflection
    public record BatchResult(
            @Schema(description = "Items with a 2xx status.", examples = "2")
            int succeeded,
            @Schema(description = "Items with a 4xx status.", examples = "1")
            int failed,
            @Schema(description = "One answer per item, in request order.")
            List<ItemResult> results) {
        public static BatchResult of(List<ItemResult> results) {
            int ok = (int) results.stream().filter(r -> r.status() < 300).count();
            return new BatchResult(ok, results.size() - ok, results);
        }
    }

    /** A page of jobs, newest first; {@code next} is the cursor for the following page (null at the end). */
    @Schema(description = "A page of jobs, newest (highest id) first.")
    public record Page(
            @Schema(description = "Up to 'limit' jobs.")
            List<JobView> jobs,
            @Schema(nullable = true, description = "Pass as 'after' to get the following page; null when this page "
                    + "is the last (it holds fewer than 'limit' jobs).", examples = "42")
            String next) {

        /** A keyset page of rows, newest first: a full page points at its last id, a short one ends. */
        public static Page of(java.util.List<io.readpast.store.JobRow> rows, int pageSize) {
            String next = rows.size() < pageSize ? null : Long.toString(rows.get(rows.size() - 1).id());
            return new Page(rows.stream().map(JobView::of).toList(), next);
        }
    }

    @Schema(description = "What a bulk action did.")
    public record BulkResult(
            @Schema(description = "The action.", examples = "requeue")
            String action,
            @Schema(description = "True: nothing was changed; 'eligible' says how many would have been.",
                    examples = "false")
            boolean dryRun,
            @Schema(description = "Jobs the filter matched in this call (at most 'limit').", examples = "1000")
            int matched,
            @Schema(description = "Matched jobs in a status the action applies to.", examples = "998")
            int eligible,
            @Schema(description = "Jobs changed (0 in a dry run).", examples = "997")
            int changed,
            @Schema(description = "Eligible jobs left as they were: a worker claimed one, or it finished or changed "
                    + "meanwhile.", examples = "1")
            int skipped,
            @Schema(nullable = true, description = "Pass as 'after' (with the same filter) to go on; null when the "
                    + "scan reached the oldest matching job.", examples = "31877")
            String next) {
    }

    @Schema(description = "Queues, by name.")
    public record QueueList(
            @Schema(description = "Every queue that has jobs or settings (active ones only, unless ?all=true).")
            List<QueueView> queues) {
    }

    @Schema(description = "A heartbeat's answer.")
    public record HeartbeatAck(
            @Schema(description = "The job id.", examples = "42")
            String id,
            @Schema(description = "Always PROCESSING after a heartbeat.", enumeration = "PROCESSING",
                    examples = "PROCESSING")
            String status,
            @Schema(description = "When the extended lease runs out.")
            Instant leaseExpiresAt,
            @Schema(description = "True when an operator asked to cancel the job: stop working on it and fail or "
                    + "release it (it then becomes CANCELLED).", examples = "false")
            boolean cancelRequested) {
    }

    @Schema(description = "A queue's settings (null: the broker default applies) and job counts.")
    public record QueueView(
            @Schema(description = "Queue name.", examples = "emails")
            String name,
            @Schema(nullable = true, description = "Most jobs LEASED or PROCESSING at once; null: unlimited.",
                    examples = "5")
            Integer maxWorkers,
            @Schema(description = "True while nothing in the queue is claimed.", examples = "false")
            boolean paused,
            @Schema(description = "False: not claimed from, and listed only with ?all=true.", examples = "true")
            boolean active,
            @Schema(nullable = true, description = "Lease length for claims that give none; null: "
                    + "readpast.defaults.lease-seconds.", examples = "60")
            Integer leaseSeconds,
            @Schema(nullable = true, description = "Attempts for jobs enqueued without maxAttempts; null: "
                    + "readpast.defaults.max-attempts.", examples = "3")
            Integer maxAttempts,
            @Schema(nullable = true, description = "Retry backoff base in seconds; null: "
                    + "readpast.defaults.backoff-base.", examples = "2")
            Long backoffBaseSeconds,
            @Schema(nullable = true, description = "Retry backoff cap in seconds; null: readpast.defaults.backoff-cap.",
                    examples = "600")
            Long backoffCapSeconds,
            @Schema(description = "PENDING jobs that are due now.", examples = "120")
            Long pending,
            @Schema(description = "PENDING jobs due later (delayed, scheduled or waiting for a retry).", examples = "4")
            Long scheduled,
            @Schema(description = "LEASED jobs.", examples = "3")
            Long leased,
            @Schema(description = "PROCESSING jobs.", examples = "2")
            Long processing,
            @Schema(description = "Dead letters (DEAD jobs not yet deleted).", examples = "1")
            Long dead,
            @Schema(nullable = true, description = "Age in seconds of the oldest due PENDING job, on the database "
                    + "clock; null when none is due.", examples = "1.25")
            Double lagSeconds,
            @Schema(description = "When the queue was first used or configured.")
            Instant createdAt,
            @Schema(description = "Last settings change.")
            Instant updatedAt,
            @Schema(nullable = true, description = "Completion webhook for jobs that name none; null: none.",
                    examples = "https://shop.example/hooks/readpast")
            String webhookUrl,
            @Schema(nullable = true, description = "Most claims per ratePeriodSeconds window; null: unlimited.",
                    examples = "100")
            Integer rateLimit,
            @Schema(nullable = true, description = "The rate limit's window in seconds; null without a rate limit.",
                    examples = "60")
            Long ratePeriodSeconds,
            @Schema(nullable = true, description = "round-robin: the queue serves the keys (fairnessKey) with due "
                    + "work in turn; null: jobs are claimed by priority and due time alone.",
                    enumeration = {"round-robin"}, examples = "round-robin")
            String fairness,
            @Schema(nullable = true, description = "Most jobs of one fairness key LEASED or PROCESSING at once; "
                    + "null: unlimited.", examples = "2")
            Integer keyMaxWorkers,
            @Schema(nullable = true, description = "Most claims of one fairness key per keyRatePeriodSeconds window; "
                    + "null: unlimited.", examples = "10")
            Integer keyRateLimit,
            @Schema(nullable = true, description = "The per-key rate limit's window in seconds; null without one.",
                    examples = "60")
            Long keyRatePeriodSeconds,
            @Schema(description = "What becomes of the queue's succeeded jobs: archive (kept in the archive until "
                    + "retention deletes them) or delete (deleted when they complete; jobs of a batch and jobs "
                    + "others wait on are archived all the same).",
                    enumeration = {"archive", "delete"}, examples = "archive")
            String onSuccess) {

        public static QueueView of(QueueRow q) {
            QueueRow.Counts c = q.counts();
            Double lag = c == null || c.lagSeconds() == null ? null : Math.max(0, c.lagSeconds());
            return new QueueView(q.name(), q.maxWorkers(), q.paused(), q.active(), q.leaseSeconds(), q.maxAttempts(),
                    q.backoffBaseMs() == null ? null : q.backoffBaseMs() / 1000,
                    q.backoffCapMs() == null ? null : q.backoffCapMs() / 1000,
                    c == null ? null : c.pending(), c == null ? null : c.scheduled(),
                    c == null ? null : c.leased(), c == null ? null : c.processing(), c == null ? null : c.dead(),
                    lag, q.createdAt(), q.updatedAt(), q.webhookUrl(), q.rateLimit(),
                    q.ratePeriodMs() == null ? null : q.ratePeriodMs() / 1000,
                    q.fairness().fair() ? "round-robin" : null, q.fairness().keyMaxWorkers(),
                    q.fairness().keyRateLimit(),
                    q.fairness().keyRatePeriodMs() == null ? null : q.fairness().keyRatePeriodMs() / 1000,
                    q.deleteSucceeded() ? "delete" : "archive");
        }
    }

    @Schema(description = "A queue's fairness keys (GET /queues/{name}/keys).")
    public record QueueKeys(
            @Schema(description = "The queue.", examples = "reports")
            String queue,
            @Schema(nullable = true, description = "round-robin when the queue serves its keys in turn; null: not fair.",
                    enumeration = {"round-robin"}, examples = "round-robin")
            String fairness,
            @Schema(nullable = true, description = "Most active jobs per key; null: unlimited.", examples = "2")
            Integer keyMaxWorkers,
            @Schema(description = "The keys, most pending jobs first.")
            List<KeyCount> keys) {
    }

    @Schema(description = "One fairness key of a queue.")
    public record KeyCount(
            @Schema(description = "The key (\"\": the jobs of a fair queue enqueued without one).", examples = "tenant-7")
            String key,
            @Schema(description = "Its due and scheduled jobs.", examples = "1200")
            long pending,
            @Schema(description = "Its LEASED and PROCESSING jobs.", examples = "2")
            long active) {
    }

    @Schema(description = "An API key as the broker lists it: never the key itself, nor its digest.")
    public record KeyView(
            @Schema(description = "The key's name.", examples = "mailer")
            String name,
            @Schema(description = "Its roles: producer, worker, admin.", examples = "[\"worker\"]")
            List<String> roles,
            @Schema(nullable = true, description = "The queues a producer or worker key may use; null: every queue.",
                    examples = "[\"emails\", \"sms\"]")
            List<String> queues,
            @Schema(description = "configured (READPAST_API_KEYS or READPAST_API_KEYS_FILE; not deletable here), "
                    + "generated (the admin key made at first start) or api (made with POST /keys).",
                    enumeration = {"configured", "generated", "api"}, examples = "api")
            String origin,
            @Schema(nullable = true, description = "Name of the key that made it (POST /keys); null otherwise.",
                    examples = "ops")
            String createdBy,
            @Schema(nullable = true, description = "When it was stored; null for configured keys.")
            Instant createdAt) {

        public static KeyView of(io.readpast.security.ApiKeys.Info k) {
            return new KeyView(k.name(), k.roles().stream().sorted()
                    .map(r -> r.name().toLowerCase(java.util.Locale.ROOT)).toList(),
                    k.queues() == null ? null : k.queues().stream().sorted().toList(),
                    k.origin(), k.createdBy(), k.createdAt());
        }
    }

    @Schema(description = "Every API key the broker accepts.")
    public record KeyList(
            @Schema(description = "Configured keys first, then stored ones (generated and made with POST /keys), "
                    + "by name.")
            List<KeyView> keys) {
    }

    @Schema(description = "A new API key. 'key' is shown this once: only its SHA-256 digest is stored.")
    @RegisterForReflection
    public record KeyCreated(
            @Schema(description = "The key to hand to the client, sent as `Authorization: Bearer <key>`. Shown "
                    + "only in this answer.", examples = "rp_3hVq9mX0aZ8cYtK2bN4fR7uW1eD6gJ5sL0pQ9vC3xA")
            String key,
            @Schema(description = "The key's name.", examples = "mailer")
            String name,
            @Schema(description = "Its roles.", examples = "[\"worker\"]")
            List<String> roles,
            @Schema(nullable = true, description = "Its queue scope; null: every queue.",
                    examples = "[\"emails\", \"sms\"]")
            List<String> queues,
            @Schema(description = "Always api.", enumeration = "api", examples = "api")
            String origin,
            @Schema(nullable = true, description = "Name of the key that made it; null with authentication off.",
                    examples = "ops")
            String createdBy,
            @Schema(description = "When it was stored.")
            Instant createdAt) {

        public static KeyCreated of(io.readpast.security.ApiKeys.Created c) {
            KeyView v = KeyView.of(c.info());
            return new KeyCreated(c.key(), v.name(), v.roles(), v.queues(), v.origin(), v.createdBy(), v.createdAt());
        }
    }

    public static final String DEPENDENCIES_EXAMPLE = "{\"parents\": [{\"job\": \"41\", \"batch\": null, \"outcome\": "
            + "\"SUCCEEDED\"}, {\"job\": null, \"batch\": \"7\", \"outcome\": null}], \"children\": [{\"job\": \"43\", "
            + "\"batch\": null, \"outcome\": null}]}";

    @Schema(description = "A job's dependency edges.")
    public record Dependencies(
            @Schema(description = "What it waits (or waited) for.") java.util.List<Edge> parents,
            @Schema(description = "The jobs that wait (or waited) for it.") java.util.List<Edge> children) {
    }

    @Schema(description = "One parent or child: a job or a batch, and the parent's outcome once it settled.")
    public record Edge(
            @Schema(nullable = true, description = "Job id; null for a batch.", examples = "41") String job,
            @Schema(nullable = true, description = "Batch id; null for a job.", examples = "7") String batch,
            @Schema(nullable = true, description = "How the parent settled (SUCCEEDED, DEAD, CANCELLED; a batch "
                    + "with any DEAD or CANCELLED job counts as DEAD); null while it has not.",
                    enumeration = {"SUCCEEDED", "DEAD", "CANCELLED"}, examples = "SUCCEEDED") String outcome) {
    }
}
