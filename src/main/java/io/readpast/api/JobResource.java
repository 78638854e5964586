package io.readpast.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Broker;
import io.readpast.core.BrokerException;
import io.readpast.store.JobRow;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;

/** Producers enqueue and read jobs; workers heartbeat, complete, fail and release them. */
@Path("/jobs")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class JobResource {

    private static final long MAX_DELAY_SECONDS = 10L * 366 * 24 * 3600;

    private final Broker broker;
    private final ReadpastConfig config;

    public JobResource(Broker broker, ReadpastConfig config) {
        this.broker = broker;
        this.config = config;
    }

    @POST
    @Tag(name = "Producers")
    @Operation(summary = "Enqueue a job")
    public Response enqueue(Requests.Enqueue body) {
        JobRow row = broker.enqueue(toNewJob(Validate.body(body), null));
        return Response.created(URI.create("/jobs/" + row.id())).entity(JobView.of(row)).build();
    }

    @GET
    @Path("/{id}")
    @Tag(name = "Producers")
    @Operation(summary = "Read a job, wherever it lives (pending, running, archived or dead)")
    public JobView get(@PathParam("id") String id) {
        return JobView.of(broker.get(Validate.jobId(id)));
    }

    @POST
    @Path("/{id}/heartbeat")
    @Tag(name = "Workers")
    @Operation(summary = "Extend a lease; the first heartbeat marks the job PROCESSING")
    public Responses.HeartbeatAck heartbeat(@PathParam("id") String id, Requests.Heartbeat body) {
        long jobId = Validate.jobId(id);
        Requests.Heartbeat b = Validate.body(body);
        String leaseId = Validate.leaseId(b.leaseId());
        Integer lease = Validate.optionalRange("leaseSeconds", b.leaseSeconds(),
                config.limits().leaseMinSeconds(), config.limits().leaseMaxSeconds());
        JobRow row = broker.heartbeat(jobId, leaseId, lease, progressJson(b.progress()));
        return new Responses.HeartbeatAck(Long.toString(row.id()),
                io.readpast.core.JobStatus.fromCode(row.status()).name(), row.leaseExpiresAt(), row.cancelRequested());
    }

    @POST
    @Path("/{id}/complete")
    @Tag(name = "Workers")
    @Operation(summary = "Report success; the job becomes SUCCEEDED")
    public JobView complete(@PathParam("id") String id, Requests.Complete body) {
        long jobId = Validate.jobId(id);
        Requests.Complete b = Validate.body(body);
        String leaseId = Validate.leaseId(b.leaseId());
        String result = b.result() == null ? null : jsonText("result", b.result());
        return JobView.of(broker.complete(jobId, leaseId, result));
    }

    @POST
    @Path("/{id}/fail")
    @Tag(name = "Workers")
    @Operation(summary = "Report failure; retried after a backoff, or DEAD when attempts are used up")
    public JobView fail(@PathParam("id") String id, Requests.Fail body) {
        long jobId = Validate.jobId(id);
        Requests.Fail b = Validate.body(body);
        String leaseId = Validate.leaseId(b.leaseId());
        String error = b.error() == null ? "failed" : b.error();
        if (error.length() > 10_000) {
            throw BrokerException.invalid("'error' must be at most 10000 characters.");
        }
        Long after = Validate.optionalRange("retryAfterSeconds", b.retryAfterSeconds(), 0L, MAX_DELAY_SECONDS);
        boolean retryable = b.retryable() == null || b.retryable();
        return JobView.of(broker.fail(jobId, leaseId, error, retryable, after == null ? null : Duration.ofSeconds(after)));
    }

    @POST
    @Path("/{id}/release")
    @Tag(name = "Workers")
    @Operation(summary = "Give a leased job back unworked, without spending an attempt")
    public JobView release(@PathParam("id") String id, Requests.Release body) {
        long jobId = Validate.jobId(id);
        String leaseId = Validate.leaseId(Validate.body(body).leaseId());
        return JobView.of(broker.release(jobId, leaseId));
    }

    /** Validates one enqueue request and turns it into the broker's command. */
    Broker.NewJobRequest toNewJob(Requests.Enqueue b, String createdBy) {
        String queue = Validate.queueName("queue", b.queue());
        String type = Validate.typeName(b.type());
        String payload = b.payload() == null ? "null" : jsonText("payload", b.payload());
        int priority = b.priority() == null ? 0 : b.priority();
        if (b.delaySeconds() != null && b.runAt() != null) {
            throw BrokerException.invalid("Give either 'delaySeconds' or 'runAt', not both.");
        }
        long delaySeconds = Validate.optionalRange("delaySeconds", b.delaySeconds(), 0L, MAX_DELAY_SECONDS) == null
                ? 0 : b.delaySeconds();
        Instant runAt = null;
        if (b.runAt() != null) {
            try {
                runAt = OffsetDateTime.parse(b.runAt()).toInstant();
            } catch (DateTimeParseException e) {
                throw BrokerException.invalid("'runAt' must be an ISO-8601 date-time with offset, "
                        + "e.g. 2030-01-01T12:00:00Z.");
            }
        }
        String tags = tagsJson(b.tags());
        Integer maxAttempts = Validate.optionalRange("maxAttempts", b.maxAttempts(), 1, 1000);
        String key = Validate.text("idempotencyKey", b.idempotencyKey(), Validate.NAME_MAX, false);
        return new Broker.NewJobRequest(queue, type, payload, tags, key, priority, maxAttempts, runAt,
                delaySeconds * 1000, createdBy);
    }

    private String tagsJson(List<String> tags) {
        if (tags == null) {
            return null;
        }
        if (tags.size() > 50) {
            throw BrokerException.invalid("'tags' may hold at most 50 tags.");
        }
        for (int i = 0; i < tags.size(); i++) {
            Validate.text("tags[" + i + "]", tags.get(i), 100, true);
        }
        return Json.write(tags);
    }

    private String progressJson(Requests.Progress progress) {
        if (progress == null) {
            return null;
        }
        Validate.optionalRange("progress.percent", progress.percent(), 0, 100);
        if (progress.message() != null && progress.message().length() > 1000) {
            throw BrokerException.invalid("'progress.message' must be at most 1000 characters.");
        }
        return Json.write(progress);
    }

    private String jsonText(String field, JsonNode node) {
        String text = node.toString();
        int max = config.limits().payloadMaxBytes();
        if (text.length() > max || text.getBytes(StandardCharsets.UTF_8).length > max) {
            throw BrokerException.invalid("'" + field + "' is larger than " + max + " bytes of JSON.");
        }
        return text;
    }
}
