package io.readpast.api.http;

import io.readpast.core.JobRules;
import com.fasterxml.jackson.databind.JsonNode;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.util.List;

/**
 * Request bodies. Fields are boxed so that "absent" can be told from a value. Unknown fields
 * and wrong JSON types are refused with 400 (see {@link JacksonConfig}); the {@code @Schema}
 * annotations document the checks {@link Validate} and the resources make.
 */
public final class Requests {

    private Requests() {
    }

    @Schema(description = "A job to enqueue.", requiredProperties = {"queue", "type"})
    public record Enqueue(
            @Schema(description = "Queue name, " + ApiDocs.NAME_RULE + " The queue is created on first use.",
                    pattern = JobRules.QUEUE_PATTERN, maxLength = 200, examples = "emails")
            String queue,
            @Schema(description = "Job type, for the worker to dispatch on: 1-200 characters of letters, digits and "
                    + ". _ : / $ - (no spaces or control characters).",
                    pattern = JobRules.TYPE_PATTERN, maxLength = 200, examples = "send")
            String type,
            @Schema(ref = ApiDocs.ANY_VALUE,
                    description = "Any JSON value, handed to the worker as is; at most readpast.limits.payload-max-bytes "
                            + "(1 MiB by default) of JSON text. Absent means null.",
                    examples = "{\"to\": \"a@b.c\"}")
            JsonNode payload,
            @Schema(description = "Higher is claimed first (within the due jobs of the queues a claim covers).",
                    defaultValue = "0", examples = "5")
            Integer priority,
            @Schema(description = "Seconds from now until the job is due. Give either delaySeconds or runAt, not both.",
                    minimum = "0", maximum = "316224000", defaultValue = "0", examples = "0")
            Long delaySeconds,
            @Schema(description = "When the job is due: an ISO-8601 date-time with offset, e.g. 2030-01-01T12:00:00Z. "
                    + "Give either runAt or delaySeconds, not both.",
                    format = "date-time", examples = "2030-01-01T12:00:00Z")
            String runAt,
            @Schema(description = "Up to 50 tags, each 1-100 characters without control characters; "
                    + "GET /jobs?tag= filters on them.",
                    maxItems = 50, examples = "[\"welcome\"]")
            List<String> tags,
            @Schema(description = "Attempts before the job goes DEAD; default the queue's maxAttempts, "
                    + "else readpast.defaults.max-attempts (5).",
                    minimum = "1", maximum = "1000", examples = "3")
            Integer maxAttempts,
            @Schema(description = "1-200 characters without control characters. While a live (PENDING, LEASED or "
                    + "PROCESSING) job holds this key, enqueueing again answers 200 with that job and creates "
                    + "nothing; once it finished, the key is free again.",
                    maxLength = 200, examples = "welcome-a@b.c")
            String idempotencyKey,
            @Schema(description = "Completion webhook: when the job becomes SUCCEEDED or DEAD, the broker POSTs it "
                    + "here (signed; see docs/api.md, Webhooks). An absolute http(s) URL of at most 2000 characters, "
                    + "on a host READPAST_WEBHOOK_ALLOWED_HOSTS allows. Absent: the queue's webhookUrl, if any. "
                    + "Refused (400) when the broker has no READPAST_WEBHOOK_SECRET.",
                    maxLength = 2000, format = "uri", examples = "https://shop.example/hooks/readpast")
            String webhookUrl,
            @Schema(description = "Unique for this many seconds (1 to 31622400): until then, enqueueing the same job "
                    + "again answers 200 with this job and creates nothing, whatever its status (finished too). "
                    + "'The same job' is the same idempotencyKey when one is given (keys are global), else the "
                    + "same queue, type and payload (object members in any order).",
                    minimum = "1", maximum = "31622400", examples = "3600")
            Long uniqueFor,
            @Schema(description = "Never start after this ISO-8601 date-time with offset: claims skip the job from "
                    + "then on, and it becomes DEAD ('expired: not started before its expiresAt', with its webhook). "
                    + "A job already claimed by then runs on. Must be after runAt when both are given.",
                    format = "date-time", examples = "2030-01-01T12:05:00Z")
            String expiresAt,
            @Schema(description = "Ordered group (as SQS FIFO message groups): jobs with the same groupKey in a queue "
                    + "run one at a time, in enqueue order; a job waits while one of its group is LEASED or "
                    + "PROCESSING, or an earlier one is PENDING (also waiting for a retry). Other groups and "
                    + "ungrouped jobs proceed. 1-200 characters without control characters.",
                    maxLength = 200, examples = "customer-42")
            String groupKey,
            @Schema(description = "W3C traceparent of the producer's trace, for a batch item (POST /jobs takes the "
                    + "traceparent header; a field here wins over the header). One that does not parse is ignored.",
                    examples = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            String traceparent,
            @Schema(description = "W3C tracestate that goes with traceparent (at most 512 characters, else ignored).",
                    examples = "vendor=abc")
            String tracestate,
            @Schema(description = "Fairness key (a tenant, a customer): a fair queue (one with fairness, keyMaxWorkers "
                    + "or keyRateLimit set) serves its keys in turn, so one key's backlog never holds up another's "
                    + "jobs by more than one turn. 1-200 characters without control characters, not ending in a "
                    + "space.", maxLength = 200, examples = "tenant-7")
            String fairnessKey,
            @Schema(description = "Parents: the job stays WAITING (never claimed) until every one of them has settled, "
                    + "then becomes PENDING in the same transaction as its last parent's completion. At most 1000 ids "
                    + "in all. Unknown ids are refused (400).")
            DependsOn dependsOn,
            @Schema(description = "What a parent that ends DEAD or CANCELLED (a batch: with any DEAD or CANCELLED job) "
                    + "does to this job: cancel (the default) makes it CANCELLED, run counts the parent as settled.",
                    enumeration = {"cancel", "run"}, defaultValue = "cancel", examples = "cancel")
            String onParentFailure,
            @Schema(description = "The most the job may run, in seconds (1 to 2592000), counted from its claim across "
                    + "heartbeats: no lease, at the claim or from a heartbeat, runs past claim + timeoutSeconds, so a "
                    + "worker that heartbeats forever still loses the job then. It then fails that attempt like an "
                    + "expired lease (error 'timed out after N s') and is retried or goes DEAD as its attempts allow. "
                    + "Heartbeats answer leaseExpiresAt no later than the deadline; once it has passed they answer "
                    + "409, as for a lost lease. Absent: no limit. Not kept by a requeue (the requeued job has "
                    + "none); the SQL enqueue procedures do not take it.",
                    minimum = "1", maximum = "2592000", examples = "300")
            Integer timeoutSeconds,
            @Schema(implementation = Retry.class, description = "The job's own retry backoff, in place of its "
                    + "queue's (and the broker's): exponential, or an explicit list of delays. A failure's "
                    + "retryAfterSeconds still wins. Absent: the queue's.")
            Retry retry,
            @Schema(description = "Debounce key (1-200 characters without control characters), with debounceSeconds: "
                    + "the first enqueue with this key in its queue opens a window of debounceSeconds and creates the "
                    + "job (201), due when the window ends; each later enqueue with the key inside the window replaces "
                    + "that job's payload and priority and answers 200 with it (the last one wins), so the job runs "
                    + "once, at the window's end, with the last payload. Once the window has ended, or the job was "
                    + "claimed (run now), the next enqueue opens a new window. Not with idempotencyKey, uniqueFor, "
                    + "groupKey, dependsOn, runAt or delaySeconds; not in a batch.",
                    maxLength = 200, examples = "reindex-customer-42")
            String debounceKey,
            @Schema(description = "The debounce window in seconds (1 to 86400), with debounceKey.",
                    minimum = "1", maximum = "86400", examples = "30")
            Long debounceSeconds) {
    }

    @Schema(description = "A retry backoff: either baseSeconds (with factor, capSeconds and jitter), or delaysSeconds.")
    public record Retry(
            @Schema(description = "The delay after the first failed attempt, 0-86400 seconds; each next one is "
                    + "factor times longer, up to capSeconds.", minimum = "0", maximum = "86400", examples = "5")
            Double baseSeconds,
            @Schema(description = "Growth per attempt, 1-10.", minimum = "1", maximum = "10", defaultValue = "2",
                    examples = "3")
            Double factor,
            @Schema(description = "The longest delay, baseSeconds to 2592000 seconds.", minimum = "0",
                    maximum = "2592000", defaultValue = "3600", examples = "600")
            Double capSeconds,
            @Schema(description = "Equal jitter: each delay is drawn from its second half (d/2 to d), so that jobs "
                    + "that failed together do not retry together.", defaultValue = "true", examples = "true")
            Boolean jitter,
            @Schema(description = "Or the delays themselves, in seconds (1-100 of them, each 0-2592000): the n-th "
                    + "retry waits the n-th; later ones the last. Exactly these, no jitter.",
                    maxItems = 100, examples = "[10, 60, 300]")
            List<Double> delaysSeconds) {
    }

    @Schema(description = "The jobs and batches a job waits for.")
    public record DependsOn(
            @Schema(type = SchemaType.ARRAY, implementation = String.class, description = "Job ids, as strings of "
                    + "digits (as the API writes every id).", maxItems = 1000, examples = "[\"41\"]")
            List<JsonNode> jobs,
            @Schema(type = SchemaType.ARRAY, implementation = String.class, description = "Batch ids, as strings of "
                    + "digits: a batch settles when it has finished (closed, and every job of "
                    + "it finished); it counts as failed when any of its jobs ended DEAD or CANCELLED.",
                    maxItems = 1000, examples = "[\"7\"]")
            List<JsonNode> batches) {
    }

    @Schema(description = "A batch of jobs, created in one transaction; its callback fires once when it settles. "
            + "Without callback and webhookUrl it is a group to track, or for other jobs to wait for (dependsOn).",
            requiredProperties = "jobs")
    public record CreateBatch(
            @Schema(type = SchemaType.ARRAY, implementation = Enqueue.class,
                    description = "The batch's first jobs, each as POST /jobs takes it (dependsOn too; not "
                    + "idempotencyKey or uniqueFor); up to readpast.limits.batch-max (1000). May be empty when open "
                    + "is true.", maxItems = 1000)
            List<JsonNode> jobs,
            @Schema(description = "The job to enqueue when the batch fires. Its payload arrives wrapped: {\"batchId\", "
                    + "\"total\", \"succeeded\", \"dead\", \"cancelled\", \"payload\": the payload given here}.")
            Callback callback,
            @Schema(description = "Where to POST (signed, as job webhooks) when the batch fires: event batch.fired, with "
                    + "the batch. On a host READPAST_WEBHOOK_ALLOWED_HOSTS allows.", maxLength = 2000, format = "uri",
                    examples = "https://shop.example/hooks/readpast")
            String webhookUrl,
            @Schema(description = "When the callback fires: completion (every job finished, whatever the outcome; the "
                    + "default), success (every job SUCCEEDED; never otherwise) or death (at the first DEAD job).",
                    enumeration = {"completion", "success", "death"}, defaultValue = "completion",
                    examples = "completion")
            String fireOn,
            @Schema(description = "Keep the batch open for more jobs (POST /batches/{id}/jobs) until POST "
                    + "/batches/{id}/close. Default false: closed at once.", defaultValue = "false", examples = "false")
            Boolean open) {
    }

    @Schema(description = "A batch's callback job.", requiredProperties = {"queue", "type"})
    public record Callback(
            @Schema(description = "Queue name.", maxLength = 200, examples = "reports")
            String queue,
            @Schema(description = "Job type.", maxLength = 200, examples = "batch-done")
            String type,
            @Schema(ref = ApiDocs.ANY_VALUE, description = "Any JSON value, handed to the callback as its payload's "
                    + "\"payload\" member.", examples = "{\"report\": 7}")
            JsonNode payload,
            @Schema(description = "Higher is claimed first.", defaultValue = "0", examples = "0")
            Integer priority,
            @Schema(description = "Attempts before the callback job goes DEAD.", minimum = "1", maximum = "1000",
                    examples = "3")
            Integer maxAttempts) {
    }

    @Schema(description = "Jobs to add to an open batch.", requiredProperties = "jobs")
    public record AddToBatch(
            @Schema(type = SchemaType.ARRAY, implementation = Enqueue.class,
                    description = "Jobs, each as POST /jobs takes it (not idempotencyKey or uniqueFor); up to "
                    + "readpast.limits.batch-max (1000).", minItems = 1, maxItems = 1000)
            List<JsonNode> jobs) {
    }

    @Schema(description = "A claim: lease up to 'limit' due jobs.", requiredProperties = "workerId")
    public record Claim(
            @Schema(description = "Who is claiming (recorded on the job as workerId): 1-200 characters without "
                    + "control characters.", maxLength = 200, pattern = OpenApiRules.NO_CONTROL_PATTERN,
                    examples = "w1")
            String workerId,
            @Schema(description = "1-100 queue names to claim from (duplicates ignored). Absent means every queue; "
                    + "for a queue-scoped API key, every queue of its scope (naming another queue is 403).",
                    minItems = 1, maxItems = 100, examples = "[\"emails\"]")
            List<String> queues,
            @Schema(description = "1-100 job types to claim (exact match, duplicates ignored): a worker that handles "
                    + "only some types leaves the others to workers that do. Absent means every type.",
                    minItems = 1, maxItems = 100, examples = "[\"send-email\"]")
            List<String> types,
            @Schema(description = "Most jobs to lease: 1 to readpast.limits.claim-max (1000 by default).",
                    minimum = "1", maximum = "1000", defaultValue = "1", examples = "10")
            Integer limit,
            @Schema(description = "Lease length in seconds, within readpast.limits.lease-min-seconds and "
                    + "lease-max-seconds (1-86400 by default). Default: the queue's leaseSeconds, else "
                    + "readpast.defaults.lease-seconds (30).",
                    minimum = "1", maximum = "86400", examples = "60")
            Integer leaseSeconds,
            @Schema(description = "Long poll: when nothing is claimable, wait up to this many seconds and answer as "
                    + "soon as a job becomes claimable, or with {\"jobs\": []} at the deadline. 0 (the default) "
                    + "answers at once.",
                    minimum = "0", maximum = "30", defaultValue = "0", examples = "20")
            Integer waitSeconds,
            @Schema(type = SchemaType.ARRAY, implementation = CompleteItem.class,
                    description = "Ack and claim: jobs this worker has finished, completed (SUCCEEDED, with their "
                            + "optional results) in the same transaction as the claim, before it leases more. Each "
                            + "item as for POST /jobs/complete, checked and answered on its own in 'acks'. 0 to "
                            + "readpast.limits.batch-max (1000 by default) items; absent or empty: a plain claim.",
                    maxItems = 1000)
            List<JsonNode> ack) {
    }

    @Schema(description = "Progress a worker reports with a heartbeat; stored on the job as 'progress'.")
    public record Progress(
            @Schema(description = "Percent done.", minimum = "0", maximum = "100", examples = "50")
            Integer percent,
            @Schema(description = "Free text, at most 1000 characters.", maxLength = 1000, examples = "rendered")
            String message) {
    }

    @Schema(description = "Extends the lease of a job the caller holds.", requiredProperties = "leaseId")
    public record Heartbeat(
            @Schema(description = "The leaseId the claim returned (a UUID).", format = "uuid",
                    examples = "3f2b8c1e-5d4a-4e6b-9a7c-1b2d3e4f5a6b")
            String leaseId,
            @Schema(description = "New lease length in seconds from now, within readpast.limits.lease-min-seconds and "
                    + "lease-max-seconds (1-86400 by default). Default: the job's current lease length.",
                    minimum = "1", maximum = "86400", examples = "60")
            Integer leaseSeconds,
            @Schema(description = "Optional progress to record; absent keeps the previous one.")
            Progress progress) {
    }

    @Schema(description = "Reports success.", requiredProperties = "leaseId")
    public record Complete(
            @Schema(description = "The leaseId the claim returned (a UUID).", format = "uuid",
                    examples = "3f2b8c1e-5d4a-4e6b-9a7c-1b2d3e4f5a6b")
            String leaseId,
            @Schema(ref = ApiDocs.ANY_VALUE,
                    description = "Optional result, any JSON value; at most readpast.limits.payload-max-bytes "
                            + "(1 MiB by default) of JSON text.",
                    examples = "{\"messageId\": \"abc\"}")
            JsonNode result) {
    }

    @Schema(description = "Reports failure.", requiredProperties = "leaseId")
    public record Fail(
            @Schema(description = "The leaseId the claim returned (a UUID).", format = "uuid",
                    examples = "3f2b8c1e-5d4a-4e6b-9a7c-1b2d3e4f5a6b")
            String leaseId,
            @Schema(description = "What went wrong, stored as the job's lastError; at most 10000 characters.",
                    maxLength = 10000, defaultValue = "failed", examples = "SMTP timeout")
            String error,
            @Schema(description = "false makes the job DEAD at once; true retries it after a backoff while attempts "
                    + "are left, else it goes DEAD. A job with cancelRequested becomes CANCELLED either way.",
                    defaultValue = "true", examples = "true")
            Boolean retryable,
            @Schema(description = "Seconds until the retry is due, instead of the exponential backoff "
                    + "(base x 2^(attempt-1), capped, with equal jitter).",
                    minimum = "0", maximum = "316224000", examples = "30")
            Long retryAfterSeconds) {
    }

    @Schema(description = "Gives a leased job back unworked.", requiredProperties = "leaseId")
    public record Release(
            @Schema(description = "The leaseId the claim returned (a UUID).", format = "uuid",
                    examples = "3f2b8c1e-5d4a-4e6b-9a7c-1b2d3e4f5a6b")
            String leaseId,
            @Schema(description = RELEASE_DELAY, minimum = "0", maximum = "316224000", examples = "30")
            Long delaySeconds) {
    }

    static final String RELEASE_DELAY = "Seconds until the job is due again, on the database's clock (it is "
            + "SCHEDULED until then); absent or 0: due at once, in its place in line.";
    static final String ITEM_ID = "The job id.";

    @Schema(description = "One lease of a batch heartbeat: as POST /jobs/{id}/heartbeat, with the job id.",
            requiredProperties = {"id", "leaseId"})
    public record HeartbeatItem(
            @Schema(description = ITEM_ID, pattern = OpenApiRules.JOB_ID_PATTERN, examples = "42")
            String id,
            @Schema(description = "The leaseId the claim returned (a UUID).", format = "uuid",
                    examples = "3f2b8c1e-5d4a-4e6b-9a7c-1b2d3e4f5a6b")
            String leaseId,
            @Schema(description = "New lease length in seconds from now, within readpast.limits.lease-min-seconds and "
                    + "lease-max-seconds (1-86400 by default). Default: the job's current lease length.",
                    minimum = "1", maximum = "86400", examples = "60")
            Integer leaseSeconds,
            @Schema(description = "Optional progress to record; absent keeps the previous one.")
            Progress progress) {
    }

    @Schema(description = "Leases to extend in one round trip.", requiredProperties = "items")
    public record HeartbeatBatch(
            @Schema(type = SchemaType.ARRAY, implementation = HeartbeatItem.class,
                    description = "1 to readpast.limits.batch-max (1000 by default) items. Each item is checked on "
                            + "its own: a bad item fails only itself.",
                    minItems = 1, maxItems = 1000)
            List<JsonNode> items) {
    }

    @Schema(description = "One failure of a batch: as POST /jobs/{id}/fail, with the job id.",
            requiredProperties = {"id", "leaseId"})
    public record FailItem(
            @Schema(description = ITEM_ID, pattern = OpenApiRules.JOB_ID_PATTERN, examples = "42")
            String id,
            @Schema(description = "The leaseId the claim returned (a UUID).", format = "uuid",
                    examples = "3f2b8c1e-5d4a-4e6b-9a7c-1b2d3e4f5a6b")
            String leaseId,
            @Schema(description = "What went wrong, stored as the job's lastError; at most 10000 characters.",
                    maxLength = 10000, defaultValue = "failed", examples = "SMTP timeout")
            String error,
            @Schema(description = "false makes the job DEAD at once; true retries it after a backoff while attempts "
                    + "are left, else it goes DEAD. A job with cancelRequested becomes CANCELLED either way.",
                    defaultValue = "true", examples = "true")
            Boolean retryable,
            @Schema(description = "Seconds until the retry is due, instead of the exponential backoff.",
                    minimum = "0", maximum = "316224000", examples = "30")
            Long retryAfterSeconds) {
    }

    @Schema(description = "Failures to report in one round trip.", requiredProperties = "items")
    public record FailBatch(
            @Schema(type = SchemaType.ARRAY, implementation = FailItem.class,
                    description = "1 to readpast.limits.batch-max (1000 by default) items. Each item is checked on "
                            + "its own: a bad item fails only itself.",
                    minItems = 1, maxItems = 1000)
            List<JsonNode> items) {
    }

    @Schema(description = "One job of a batch release: as POST /jobs/{id}/release, with the job id.",
            requiredProperties = {"id", "leaseId"})
    public record ReleaseItem(
            @Schema(description = ITEM_ID, pattern = OpenApiRules.JOB_ID_PATTERN, examples = "42")
            String id,
            @Schema(description = "The leaseId the claim returned (a UUID).", format = "uuid",
                    examples = "3f2b8c1e-5d4a-4e6b-9a7c-1b2d3e4f5a6b")
            String leaseId,
            @Schema(description = RELEASE_DELAY, minimum = "0", maximum = "316224000", examples = "30")
            Long delaySeconds) {
    }

    @Schema(description = "Leased jobs to give back unworked in one round trip.", requiredProperties = "items")
    public record ReleaseBatch(
            @Schema(type = SchemaType.ARRAY, implementation = ReleaseItem.class,
                    description = "1 to readpast.limits.batch-max (1000 by default) items. Each item is checked on "
                            + "its own: a bad item fails only itself.",
                    minItems = 1, maxItems = 1000)
            List<JsonNode> items) {
    }

    /** Items are parsed one by one, so that a malformed item fails only itself. */
    @Schema(description = "Jobs to enqueue in one transaction.", requiredProperties = "jobs")
    public record EnqueueBatch(
            @Schema(type = SchemaType.ARRAY, implementation = Enqueue.class,
                    description = "1 to readpast.limits.batch-max (1000 by default) jobs, each as for POST /jobs. "
                            + "Each item is checked on its own: a bad item fails only itself.",
                    minItems = 1, maxItems = 1000)
            List<JsonNode> jobs) {
    }

    @Schema(description = "One job to complete in a batch.", requiredProperties = {"id", "leaseId"})
    public record CompleteItem(
            @Schema(description = "The job id.", pattern = OpenApiRules.JOB_ID_PATTERN, examples = "42")
            String id,
            @Schema(description = "The leaseId the claim returned (a UUID).", format = "uuid",
                    examples = "3f2b8c1e-5d4a-4e6b-9a7c-1b2d3e4f5a6b")
            String leaseId,
            @Schema(ref = ApiDocs.ANY_VALUE,
                    description = "Optional result, any JSON value; at most readpast.limits.payload-max-bytes "
                            + "(1 MiB by default) of JSON text.",
                    examples = "{\"messageId\": \"abc\"}")
            JsonNode result) {
    }

    @Schema(description = "Leased jobs to complete in one round trip.", requiredProperties = "items")
    public record CompleteBatch(
            @Schema(type = SchemaType.ARRAY, implementation = CompleteItem.class,
                    description = "1 to readpast.limits.batch-max (1000 by default) items. Each item is checked on "
                            + "its own: a bad item fails only itself.",
                    minItems = 1, maxItems = 1000)
            List<JsonNode> items) {
    }

    @Schema(description = "Changes to a job nobody holds (PENDING or WAITING): each field given replaces the job's, "
            + "each absent one keeps it; at least one is required.")
    public record Edit(
            @Schema(description = "Higher is claimed first.", examples = "9")
            Integer priority,
            @Schema(description = "When the job is due: an ISO-8601 date-time with offset. A PENDING job moved ahead "
                    + "waits until then; one moved back (or to the past) is due at once. A WAITING job keeps waiting "
                    + "for its parents and is due at this time once they have settled. Must be before the job's "
                    + "expiresAt, if it has one. POST /jobs/{id}/run-now makes it due now.",
                    format = "date-time", examples = "2030-01-01T12:00:00Z")
            String runAt,
            @Schema(ref = ApiDocs.ANY_VALUE,
                    description = "A new payload (any JSON value; null too) replacing the old one; absent keeps it. "
                            + "At most readpast.limits.payload-max-bytes (1 MiB by default) of JSON text.",
                    examples = "{\"to\": \"b@c.example\"}")
            JsonNode payload) {
    }

    @Schema(description = "Which jobs: the filter of GET /jobs, as an object. Every field is optional and they combine "
            + "with AND; at least one is required.")
    public record Filter(
            @Schema(description = "Only jobs of this queue.", examples = "emails")
            String queue,
            @Schema(description = "Only jobs in these statuses: comma-separated PENDING, WAITING, LEASED, PROCESSING, "
                    + "SUCCEEDED, DEAD, CANCELLED.", examples = "DEAD")
            String status,
            @Schema(description = "Only jobs of this type.", examples = "send")
            String type,
            @Schema(description = "Only jobs carrying this tag.", examples = "welcome")
            String tag,
            @Schema(description = "Only jobs of this fairness key.", examples = "acme")
            String fairnessKey,
            @Schema(description = "Only jobs of this ordered group.", examples = "customer-42")
            String groupKey,
            @Schema(description = "Only jobs of this batch (its id).", examples = "7")
            String batch,
            @Schema(description = "Only jobs whose last error contains this text (1-200 characters; any case on "
                    + "PostgreSQL, the database collation's case rule on SQL Server).", examples = "timeout")
            String error,
            @Schema(description = "Only jobs created at or after this ISO-8601 date-time with offset.",
                    format = "date-time", examples = "2026-11-30T00:00:00Z")
            String createdAfter,
            @Schema(description = "Only jobs created before this ISO-8601 date-time with offset.",
                    format = "date-time", examples = "2026-12-01T00:00:00Z")
            String createdBefore,
            @Schema(description = "Only jobs finished (SUCCEEDED, DEAD, CANCELLED) at or after this date-time.",
                    format = "date-time", examples = "2026-11-30T00:00:00Z")
            String finishedAfter,
            @Schema(description = "Only jobs finished before this date-time.",
                    format = "date-time", examples = "2026-12-01T00:00:00Z")
            String finishedBefore,
            @Schema(ref = ApiDocs.PAYLOAD_FILTER, description = "Only jobs whose payload is an object with each of "
                    + "these members, equal: 1-20 members, each a string, number, boolean or null (top-level members "
                    + "only).", examples = "{\"customer\": \"acme\"}")
            JsonNode payload) {

        /** The raw fields for {@link JobQuery}. */
        public JobQuery.Raw raw() {
            return new JobQuery.Raw(queue, status, type, tag, fairnessKey, groupKey, batch, error, createdAfter,
                    createdBefore, finishedAfter, finishedBefore, payload);
        }

        /** True when no field is given. */
        public boolean isEmpty() {
            return java.util.stream.Stream.of(queue, status, type, tag, fairnessKey, groupKey, batch, error,
                    createdAfter, createdBefore, finishedAfter, finishedBefore, payload).allMatch(java.util.Objects::isNull);
        }
    }

    @Schema(description = "One action on every job a filter matches, newest first.",
            requiredProperties = {"action", "filter"})
    public record Bulk(
            @Schema(description = "requeue (DEAD and CANCELLED jobs: PENDING again, attempts reset), cancel (PENDING "
                    + "and WAITING jobs at once; LEASED and PROCESSING ones get cancelRequested) or delete (finished "
                    + "jobs, for good). Matched jobs in other statuses are left alone.",
                    enumeration = {"requeue", "cancel", "delete"}, examples = "requeue")
            String action,
            @Schema(implementation = Filter.class)
            Filter filter,
            @Schema(description = "Count what would change, change nothing.", defaultValue = "false", examples = "false")
            Boolean dryRun,
            @Schema(description = "Most jobs matched in this call, 1-10000; the answer's 'next' continues.",
                    minimum = "1", maximum = "10000", defaultValue = "1000", examples = "1000")
            Integer limit,
            @Schema(description = "Go on from this cursor: the 'next' of the previous call (ids below it).",
                    examples = "4211")
            String after,
            @Schema(ref = ApiDocs.ANY_VALUE, description = "requeue only: a new payload for every requeued job; "
                    + "absent or null keeps each job's.", examples = "{\"to\": \"a@b.example\"}")
            JsonNode payload,
            @Schema(description = "requeue only: keep each job's attempts instead of resetting them to 0.",
                    defaultValue = "false", examples = "false")
            Boolean keepAttempts,
            @Schema(description = "requeue only: move every requeued job into this queue, which must exist (400 "
                    + "otherwise); absent keeps each job's.", pattern = JobRules.QUEUE_PATTERN, maxLength = 200,
                    examples = "emails-retry")
            String queue) {
    }

    @Schema(description = "Optional changes for a requeued job.")
    public record Requeue(
            @Schema(ref = ApiDocs.ANY_VALUE,
                    description = "A new payload (any JSON value) replacing the old one; absent or null keeps it. "
                            + "At most readpast.limits.payload-max-bytes (1 MiB by default) of JSON text.",
                    examples = "{\"to\": \"a@b.example\"}")
            JsonNode payload,
            @Schema(description = "Keep the job's attempts instead of resetting them to 0: the next claim counts on "
                    + "from them (a job that ran out of attempts gets one more).", defaultValue = "false",
                    examples = "false")
            Boolean keepAttempts,
            @Schema(description = "Move the job into this queue, which must exist (400 otherwise); absent keeps "
                    + "its queue. A job of an ordered group goes to the end of its group in that queue.",
                    pattern = JobRules.QUEUE_PATTERN, maxLength = 200, examples = "emails-retry")
            String queue) {
    }

    @Schema(description = "A queue's settings. PUT replaces them all: absent fields take their defaults.")
    public record Queue(
            @Schema(description = "Most jobs LEASED or PROCESSING at once in this queue, across all workers and broker "
                    + "instances. Absent or null: unlimited.",
                    minimum = "0", maximum = "1000000", examples = "5")
            Integer maxWorkers,
            @Schema(description = "A paused queue keeps its jobs but none is claimed.", defaultValue = "false",
                    examples = "false")
            Boolean paused,
            @Schema(description = "An inactive queue is not claimed from and is listed only with GET /queues?all=true.",
                    defaultValue = "true", examples = "true")
            Boolean active,
            @Schema(description = "Lease length for claims that give none, within readpast.limits.lease-min-seconds "
                    + "and lease-max-seconds (1-86400 by default). Absent: readpast.defaults.lease-seconds (30).",
                    minimum = "1", maximum = "86400", examples = "60")
            Integer leaseSeconds,
            @Schema(description = "Attempts for jobs enqueued without maxAttempts. Absent: "
                    + "readpast.defaults.max-attempts (5).",
                    minimum = "1", maximum = "1000", examples = "3")
            Integer maxAttempts,
            @Schema(description = "Retry backoff base in seconds: the delay is base x 2^(attempt-1), capped, with "
                    + "equal jitter. Absent: readpast.defaults.backoff-base (2 s).",
                    minimum = "0", maximum = "86400", examples = "2")
            Long backoffBaseSeconds,
            @Schema(description = "Retry backoff cap in seconds. Absent: readpast.defaults.backoff-cap (1 h).",
                    minimum = "0", maximum = "2592000", examples = "600")
            Long backoffCapSeconds,
            @Schema(description = "Completion webhook for the queue's jobs that name none: when one becomes "
                    + "SUCCEEDED or DEAD, the broker POSTs it here (signed; see docs/api.md, Webhooks). Absent or null: "
                    + "none. Rules as for the job's webhookUrl.",
                    maxLength = 2000, format = "uri", examples = "https://shop.example/hooks/readpast")
            String webhookUrl,
            @Schema(description = "Rate limit: at most this many claims from the queue in each ratePeriodSeconds "
                    + "window, across all workers and broker instances (counted in the database; windows aligned "
                    + "on the epoch, database clock). A claim then gets fewer jobs (or none) instead of waiting. "
                    + "Give it with ratePeriodSeconds; absent or null: unlimited.",
                    minimum = "0", maximum = "1000000", examples = "100")
            Integer rateLimit,
            @Schema(description = "The rate limit's window in seconds (1-86400); required with rateLimit.",
                    minimum = "1", maximum = "86400", examples = "60")
            Integer ratePeriodSeconds,
            @Schema(description = "round-robin: serve the fairness keys (the jobs' fairnessKey) with due work in turn, "
                    + "so that one key's backlog never delays another key's due jobs by more than one turn (see "
                    + "docs/fairness.md). Implied by keyMaxWorkers and keyRateLimit. Absent or null: by priority and "
                    + "due time alone.", enumeration = {"round-robin"}, examples = "round-robin")
            String fairness,
            @Schema(description = "Most jobs of one fairness key LEASED or PROCESSING at once, across all workers and "
                    + "broker instances (1-1000000). Absent or null: unlimited.",
                    minimum = "1", maximum = "1000000", examples = "2")
            Integer keyMaxWorkers,
            @Schema(description = "Most claims of one fairness key in each keyRatePeriodSeconds window (fixed windows "
                    + "aligned on the epoch, database clock), across all workers and broker instances "
                    + "(1-1000000). Give it with keyRatePeriodSeconds; absent or null: unlimited.",
                    minimum = "1", maximum = "1000000", examples = "10")
            Integer keyRateLimit,
            @Schema(description = "The per-key rate limit's window in seconds (1-86400); required with keyRateLimit.",
                    minimum = "1", maximum = "86400", examples = "60")
            Integer keyRatePeriodSeconds,
            @Schema(description = "What becomes of the queue's succeeded jobs. archive: they move to the archive, "
                    + "readable with GET /jobs/{id} until retention deletes them (readpast.retention.succeeded). "
                    + "delete: they are deleted when they complete, in the completing statement, with no archive "
                    + "copy (GET /jobs/{id} then answers 404; jobs of a batch and jobs others wait on are archived "
                    + "all the same). Absent or null: archive.", enumeration = {"archive", "delete"},
                    examples = "delete")
            String onSuccess) {
    }

    @Schema(description = "A new API key.", requiredProperties = {"name", "roles"})
    public record CreateKey(
            @Schema(description = "The key's name, recorded as createdBy/modifiedBy on jobs and in audit log lines: "
                    + "1-100 letters, digits and . _ @ - (starting with a letter or digit); unique among all keys.",
                    pattern = JobRules.KEY_NAME_PATTERN, maxLength = 100, examples = "mailer")
            String name,
            @Schema(description = "One or more of producer, worker, admin (admin may do everything).",
                    minItems = 1, examples = "[\"worker\"]")
            List<String> roles,
            @Schema(description = "Producer and worker keys only: the queues the key may use (1-100 names); "
                    + "absent: every queue.", minItems = 1, maxItems = 100, examples = "[\"emails\", \"sms\"]")
            List<String> queues) {
    }
}
