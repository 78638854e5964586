package io.readpast.api.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.readpast.core.JobStatus;
import io.readpast.store.JobRow;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.media.SchemaProperty;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A job as the API returns it. JSON columns (payload, tags, result, progress) are passed
 * through as stored text, not re-parsed. {@code leaseId} appears only in claim responses.
 */
@JsonPropertyOrder({"id", "queue", "type", "payload", "priority", "status", "attempt", "maxAttempts", "tags",
        "runAt", "createdAt", "updatedAt", "startedAt", "finishedAt", "workerId", "leaseId", "leaseExpiresAt",
        "heartbeatAt", "progress", "cancelRequested", "lastError", "errors", "result", "idempotencyKey", "createdBy",
        "modifiedBy", "webhookUrl", "expiresAt", "groupKey", "traceparent", "tracestate", "fairnessKey", "batchId", "parentsLeft",
        "timeoutSeconds", "deadlineAt", "retry"})
@Schema(description = "A job, wherever it lives: PENDING, WAITING, LEASED and PROCESSING jobs in the hot table, SUCCEEDED "
        + "and CANCELLED in the archive, DEAD in the dead letters. Times are ISO-8601 UTC on the database clock.")
public record JobView(
        @Schema(description = "Job id: a positive integer, as a string.", examples = "42")
        String id,
        @Schema(description = "Queue name.", examples = "emails")
        String queue,
        @Schema(description = "Job type.", examples = "send")
        String type,
        @Schema(ref = ApiDocs.ANY_VALUE, description = "The payload as enqueued (any JSON value).",
                examples = "{\"to\": \"a@b.c\"}")
        @JsonRawValue String payload,
        @Schema(description = "Higher is claimed first.", examples = "5")
        int priority,
        @Schema(description = "PENDING (claimable, maybe scheduled later), WAITING (for its parents: dependsOn), "
                + "LEASED (claimed), PROCESSING (heartbeat received), SUCCEEDED, DEAD (attempts used up or failed "
                + "fatally) or CANCELLED.")
        JobStatus status,
        @Schema(description = "Attempts started so far: a claim counts one, a release gives it back.", examples = "1")
        int attempt,
        @Schema(description = "Attempts before the job goes DEAD.", examples = "3")
        int maxAttempts,
        @Schema(type = SchemaType.ARRAY, implementation = String.class, description = "Tags, [] when none.",
                examples = "[\"welcome\"]")
        @JsonRawValue String tags,
        @Schema(description = "When the job is (or was) due to be claimed; after a failure, when the retry is due.")
        Instant runAt,
        @Schema(description = "When the job was enqueued.")
        Instant createdAt,
        @Schema(description = "Last change.")
        Instant updatedAt,
        @Schema(nullable = true, description = "When the first heartbeat of any attempt arrived; null before one did.")
        Instant startedAt,
        @Schema(nullable = true, description = "When the job became SUCCEEDED, DEAD or CANCELLED; null before.")
        Instant finishedAt,
        @Schema(nullable = true, description = "workerId of the claim holding the job, or of the last one for a "
                + "finished job; null while PENDING.", examples = "w1")
        String workerId,
        @Schema(description = "The lease (a UUID) to quote in heartbeat, complete, fail and release. Only in "
                + "claim responses; absent elsewhere.", format = "uuid", examples = ApiDocs.LEASE_ID)
        @JsonInclude(JsonInclude.Include.NON_NULL) String leaseId,
        @Schema(nullable = true, description = "When the current lease runs out unless extended by a heartbeat; "
                + "null when not leased.")
        Instant leaseExpiresAt,
        @Schema(nullable = true, description = "Last heartbeat of the current lease; null before the first.")
        Instant heartbeatAt,
        @Schema(type = SchemaType.OBJECT, nullable = true, properties = {
                @SchemaProperty(name = "percent", type = SchemaType.INTEGER, minimum = "0", maximum = "100",
                        description = "Percent done."),
                @SchemaProperty(name = "message", type = SchemaType.STRING, maxLength = 1000,
                        description = "Free text.")},
                description = "The last progress a heartbeat reported; null when none.")
        @JsonRawValue String progress,
        @Schema(description = "True when a cancel was requested while the job was leased: the worker should stop "
                + "and fail or release it; the job then becomes CANCELLED.", examples = "false")
        boolean cancelRequested,
        @Schema(nullable = true, description = "The error of the last failure or lease expiry; null when none.",
                examples = "SMTP timeout")
        String lastError,
        @Schema(description = "The error of each failed attempt (a failure report or a lease expiry), oldest first, "
                + "the last 20 at most; [] when none failed. Kept across a requeue. Only in GET /jobs/{id}; "
                + "absent elsewhere.")
        @JsonInclude(JsonInclude.Include.NON_NULL) List<AttemptError> errors,
        @Schema(ref = ApiDocs.ANY_VALUE,
                description = "The result complete reported (any JSON value); null when none.",
                examples = "{\"messageId\": \"abc\"}")
        @JsonRawValue String result,
        @Schema(nullable = true, description = "The idempotency key given at enqueue; null when none.",
                examples = "welcome-a@b.c")
        String idempotencyKey,
        @Schema(nullable = true, description = "Name of the API key that enqueued the job; null with authentication "
                + "off.", examples = "shop")
        String createdBy,
        @Schema(nullable = true, description = "Name of the API key that changed the job last; null with "
                + "authentication off.", examples = "mailer")
        String modifiedBy,
        @Schema(nullable = true, description = "The job's own completion webhook; null when it names none (its "
                + "queue's webhook, if any, applies).", examples = "https://shop.example/hooks/readpast")
        String webhookUrl,
        @Schema(nullable = true, description = "While the job is PENDING, LEASED or PROCESSING: when it may no longer "
                + "start (null: never). Null for finished jobs.")
        Instant expiresAt,
        @Schema(nullable = true, description = "The job's ordered group in its queue; null: none.",
                examples = "customer-42")
        String groupKey,
        @Schema(nullable = true, description = "The W3C traceparent the enqueue carried (its header, or the batch "
                + "item's field), for the worker to continue the producer's trace; null: none, or it did not "
                + "parse.", examples = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        String traceparent,
        @Schema(nullable = true, description = "The W3C tracestate that came with that traceparent; null: none.",
                examples = "vendor=abc")
        String tracestate,
        @Schema(nullable = true, description = "The job's fairness key (a tenant, a customer): a fair queue serves "
                + "its keys in turn, within the queue's keyMaxWorkers and keyRateLimit; null: none (in a fair "
                + "queue, jobs without a key share the key \"\").", examples = "tenant-7")
        String fairnessKey,
        @Schema(nullable = true, description = "The batch the job belongs to (POST /batches); null: none. A "
                + "requeued job has left its batch.", examples = "12")
        String batchId,
        @Schema(nullable = true, description = "While WAITING: how many of its parents (dependsOn) have not "
                + "settled yet; null otherwise.", examples = "2")
        Integer parentsLeft,
        @Schema(nullable = true, description = "The most the job may run from a claim (timeoutSeconds at enqueue), "
                + "kept when it finishes and by a requeue; null: no limit.", examples = "300")
        Integer timeoutSeconds,
        @Schema(nullable = true, description = "While LEASED or PROCESSING with a timeoutSeconds: when the current "
                + "attempt's time is up (claim + timeoutSeconds, database clock); no lease runs past it. Null "
                + "otherwise.")
        Instant deadlineAt,
        @Schema(nullable = true, implementation = Requests.Retry.class, description = "The job's own retry "
                + "backoff, as enqueued (defaults filled in), kept when it finishes and by a requeue; null: its "
                + "queue's.")
        @JsonRawValue String retry) {

    @Schema(description = "The error one failed attempt ended with.")
    public record AttemptError(
            @Schema(description = "The attempt that failed (1 = the first claim).", examples = "2")
            int attempt,
            @Schema(description = "When it failed, on the database clock.")
            Instant at,
            @Schema(nullable = true, description = "The worker that held the lease.", examples = "w1")
            String workerId,
            @Schema(description = "The error the worker reported, or 'lease expired (worker ...)'.",
                    examples = "SMTP timeout")
            String error) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    public static JobView of(JobRow r) {
        return of(r, false, false);
    }

    public static JobView withLease(JobRow r) {
        return of(r, true, false);
    }

    /** The job with its per-attempt errors: the answer of GET /jobs/{id}. */
    public static JobView detail(JobRow r) {
        return of(r, false, true);
    }

    private static JobView of(JobRow r, boolean withLease, boolean withErrors) {
        return new JobView(Long.toString(r.id()), r.queue(), r.type(), r.payload(), r.priority(),
                JobStatus.of(r), r.attempt(), r.maxAttempts(), r.tags() == null ? "[]" : r.tags(),
                r.dueAt(), r.createdAt(), r.updatedAt(), r.startedAt(), r.finishedAt(), r.workerId(),
                withLease ? r.leaseId() : null, r.leaseExpiresAt(), r.heartbeatAt(), r.progress(),
                r.cancelRequested(), r.lastError(), withErrors ? errors(r.errors()) : null, r.result(),
                r.idempotencyKey(), r.createdBy(), r.modifiedBy(), r.webhookUrl(), r.expiresAt(), r.groupKey(),
                r.traceparent(), r.tracestate(), r.fairnessKey(), r.batchId() == null ? null : Long.toString(r.batchId()),
                r.depsLeft() > 0 ? r.depsLeft() : null, r.timeoutSeconds(),
                r.status() == 1 || r.status() == 2 ? r.deadlineAt() : null, r.retryPolicy());
    }

    /** The stored JSON array of {"attempt", "at", "workerId", "error"}, as records. */
    static List<AttemptError> errors(String json) {
        if (json == null || json.isBlank()) {
            return List.of();
        }
        try {
            List<AttemptError> out = new ArrayList<>();
            for (JsonNode e : JSON.readTree(json)) {
                JsonNode at = e.path("at");
                JsonNode worker = e.path("workerId");
                out.add(new AttemptError(e.path("attempt").asInt(),
                        at.isTextual() ? Instant.parse(at.asText()) : null,
                        worker.isTextual() ? worker.asText() : null,
                        e.path("error").isTextual() ? e.path("error").asText() : null));
            }
            return List.copyOf(out);
        } catch (JsonProcessingException | java.time.format.DateTimeParseException e) {
            throw new IllegalStateException("Stored errors of a job are not the expected JSON", e);
        }
    }
}
