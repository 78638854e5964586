package io.readpast.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.readpast.store.CompleteItem;
import io.readpast.store.JobFilter;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.QueryParam;
import java.util.ArrayList;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Broker;
import io.readpast.core.BrokerException;
import io.readpast.security.Allowed;
import io.readpast.security.Caller;
import io.readpast.security.Role;
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
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;

/** Producers enqueue and read jobs; workers heartbeat, complete, fail and release them. */
@Path("/jobs")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class JobResource {

    private static final long MAX_DELAY_SECONDS = 10L * 366 * 24 * 3600;
    private static final Instant RUN_AT_MIN = Instant.parse("1970-01-01T00:00:00Z");
    private static final Instant RUN_AT_MAX = Instant.parse("9999-12-31T23:59:59Z");

    private final Broker broker;
    private final ReadpastConfig config;
    private final ObjectMapper mapper;
    private final Caller caller;

    public JobResource(Broker broker, ReadpastConfig config, ObjectMapper mapper, Caller caller) {
        this.broker = broker;
        this.config = config;
        this.mapper = mapper;
        this.caller = caller;
    }

    @POST
    @Allowed(Role.PRODUCER)
    @Tag(name = "Producers")
    @Operation(summary = "Enqueue a job",
            description = "201 with the new job. With an idempotencyKey that a live (not finished) job holds, "
                    + "200 with that job and nothing is created. The job is due at once, after delaySeconds, or "
                    + "at runAt (ISO-8601); its queue is created on first use. A queue-scoped key may enqueue "
                    + "only into its queues (403)." + ApiDocs.ROLE_PRODUCER)
    @RequestBody(required = true, description = "The job.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Enqueue.class),
                    examples = {
                            @ExampleObject(name = "minimal", summary = "Queue, type and payload",
                                    value = ApiDocs.ENQUEUE_BODY_MINIMAL),
                            @ExampleObject(name = "full", summary = "Priority, tags, attempts, idempotency key",
                                    value = ApiDocs.ENQUEUE_BODY),
                            @ExampleObject(name = "scheduled", summary = "Due at a given time",
                                    value = ApiDocs.ENQUEUE_BODY_SCHEDULED)}))
    @APIResponse(responseCode = "201", description = "Created: the new job, PENDING.",
            headers = @Header(name = "Location", description = "/jobs/{id} of the new job",
                    schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "created", value = ApiDocs.JOB_PENDING)))
    @APIResponse(responseCode = "200", description = "A live job already holds the idempotencyKey: that job, "
            + "unchanged; nothing was created.",
            headers = @Header(name = "Location", description = "/jobs/{id} of the existing job",
                    schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "existing", value = ApiDocs.JOB_LEASED)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", description = "The key does not have the producer role, or is scoped to "
            + "queues that do not include this one.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = {
                            @ExampleObject(name = "role", value = ApiDocs.PROBLEM_FORBIDDEN_ROLE),
                            @ExampleObject(name = "queue", value = ApiDocs.PROBLEM_FORBIDDEN_QUEUE)}))
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Response enqueue(Requests.Enqueue body) {
        Broker.Enqueued e = broker.enqueue(toNewJob(Validate.body(body)));
        if (!e.created()) {
            return Response.ok(JobView.of(e.job())).header("Location", "/jobs/" + e.job().id()).build();
        }
        return Response.created(URI.create("/jobs/" + e.job().id())).entity(JobView.of(e.job())).build();
    }

    @POST
    @Path("/batch")
    @Allowed(Role.PRODUCER)
    @Tag(name = "Producers")
    @Operation(summary = "Enqueue up to 1000 jobs in one transaction",
            description = "Answers per item, in order: 201 created, 200 an idempotency key matched a live job, "
                    + "400 with the reason, 403 a queue outside the key's scope. A bad item fails only itself; "
                    + "the valid ones are enqueued together. The request as a whole gets 400 only when 'jobs' "
                    + "is missing, empty or longer than readpast.limits.batch-max (1000 by default), or the body "
                    + "is not JSON of this shape." + ApiDocs.ROLE_PRODUCER)
    @RequestBody(required = true, description = "The jobs, each as for POST /jobs.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.EnqueueBatch.class),
                    examples = @ExampleObject(name = "batch", value = ApiDocs.ENQUEUE_BATCH_BODY)))
    @APIResponse(responseCode = "200", description = "One answer per item, in request order.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.BatchResult.class),
                    examples = @ExampleObject(name = "mixed", value = ApiDocs.ENQUEUE_BATCH_RESULT)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.BatchResult enqueueBatch(Requests.EnqueueBatch body) {
        List<JsonNode> items = Validate.body(body).jobs();
        Validate.batchSize("jobs", items, config.limits().batchMax());
        Responses.ItemResult[] results = new Responses.ItemResult[items.size()];
        List<Integer> validIndex = new ArrayList<>();
        List<Broker.NewJobRequest> valid = parseItems(items, "Each job", results, validIndex,
                node -> toNewJob(mapper.treeToValue(node, Requests.Enqueue.class)));
        List<Broker.Enqueued> done = valid.isEmpty() ? List.of() : broker.enqueueMany(valid);
        for (int k = 0; k < done.size(); k++) {
            Broker.Enqueued e = done.get(k);
            int i = validIndex.get(k);
            results[i] = e.error() != null
                    ? refused(i, null, e.error())
                    : new Responses.ItemResult(i, Long.toString(e.job().id()), e.created() ? 201 : 200,
                            JobView.of(e.job()), null);
        }
        return Responses.BatchResult.of(List.of(results));
    }

    @POST
    @Path("/complete")
    @Allowed(Role.WORKER)
    @Tag(name = "Workers")
    @Operation(summary = "Complete up to 1000 leased jobs in one round trip",
            description = "Answers per item, in order: 200 completed, 404 no such job, 409 lease not held, 400 invalid. "
                    + "Items are checked and answered on their own. The request as a whole gets 400 only when "
                    + "'items' is missing, empty or longer than readpast.limits.batch-max (1000 by default), or "
                    + "the body is not JSON of this shape." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The jobs to complete, each with its leaseId and optional result.",
            content = @Content(mediaType = ApiDocs.JSON,
                    schema = @Schema(implementation = Requests.CompleteBatch.class),
                    examples = @ExampleObject(name = "batch", value = ApiDocs.COMPLETE_BATCH_BODY)))
    @APIResponse(responseCode = "200", description = "One answer per item, in request order.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.BatchResult.class),
                    examples = @ExampleObject(name = "mixed", value = ApiDocs.COMPLETE_BATCH_RESULT)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.BatchResult completeBatch(Requests.CompleteBatch body) {
        List<JsonNode> items = Validate.body(body).items();
        Validate.batchSize("items", items, config.limits().batchMax());
        Responses.ItemResult[] results = new Responses.ItemResult[items.size()];
        List<Integer> validIndex = new ArrayList<>();
        List<CompleteItem> valid = parseItems(items, "Each item", results, validIndex, node -> {
            Requests.CompleteItem item = mapper.treeToValue(node, Requests.CompleteItem.class);
            long id = Validate.jobId(item.id() == null ? "" : item.id());
            String lease = Validate.leaseId(item.leaseId());
            String result = item.result() == null || item.result().isNull() ? null : jsonText("result", item.result());
            return new CompleteItem(id, lease, result);
        });
        List<Broker.Completion> done = broker.completeMany(valid, caller.name());
        for (int k = 0; k < done.size(); k++) {
            Broker.Completion c = done.get(k);
            int i = validIndex.get(k);
            results[i] = c.error() == null
                    ? new Responses.ItemResult(i, Long.toString(c.id()), 200, null, null)
                    : refused(i, Long.toString(c.id()), c.error());
        }
        return Responses.BatchResult.of(List.of(results));
    }

    /** Turns one batch item into a value; may throw for a bad item. */
    @FunctionalInterface
    interface ItemParser<T> {
        T parse(JsonNode node) throws JsonProcessingException;
    }

    /**
     * Parses each item of a batch on its own, so that a bad item fails only itself: its 4xx
     * answer goes into {@code results}; the good ones are returned, their positions in {@code validIndex}.
     */
    private static <T> List<T> parseItems(List<JsonNode> items, String what, Responses.ItemResult[] results,
                                          List<Integer> validIndex, ItemParser<T> parser) {
        List<T> valid = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            try {
                JsonNode node = items.get(i);
                if (node == null || !node.isObject()) {
                    throw BrokerException.invalid(what + " must be a JSON object.");
                }
                valid.add(parser.parse(node));
                validIndex.add(i);
            } catch (BrokerException e) {
                results[i] = refused(i, null, e);
            } catch (JsonProcessingException e) {
                results[i] = new Responses.ItemResult(i, null, 400, null, new Problem(
                        "urn:readpast:problem:malformed-json", "Malformed item", 400, ProblemMappers.describe(e), null));
            }
        }
        return valid;
    }

    private static Responses.ItemResult refused(int index, String id, BrokerException e) {
        return new Responses.ItemResult(index, id, ProblemMappers.status(e), null, ProblemMappers.problem(e));
    }

    @GET
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Operators")
    @Operation(summary = "Browse jobs, newest first, across pending, running, archived and dead jobs",
            description = "Keyset pagination: pass the previous page's 'next' as 'after'. status takes one or more "
                    + "comma-separated statuses. Filters combine with AND." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "A page of jobs, newest first.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.Page.class),
                    examples = {
                            @ExampleObject(name = "page", value = ApiDocs.PAGE),
                            @ExampleObject(name = "last", summary = "Past the last page", value = ApiDocs.PAGE_LAST)}))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.Page list(
            @Parameter(description = "Only jobs of this queue.", example = "emails")
            @QueryParam("queue") String queue,
            @Parameter(description = "Only jobs in these statuses: comma-separated PENDING, LEASED, PROCESSING, "
                    + "SUCCEEDED, DEAD, CANCELLED (case-insensitive).", example = "PENDING,LEASED")
            @QueryParam("status") String status,
            @Parameter(description = "Only jobs of this type.", example = "send")
            @QueryParam("type") String type,
            @Parameter(description = "Only jobs carrying this tag (1-100 characters).", example = "welcome")
            @QueryParam("tag") String tag,
            @Parameter(description = "Page size: 1 to readpast.limits.page-max (500 by default); default 50.",
                    schema = @Schema(type = SchemaType.INTEGER, minimum = "1", defaultValue = "50"), example = "50")
            @QueryParam("limit") String limit,
            @Parameter(description = "The 'next' value of the previous page; absent for the first page.",
                    example = "42")
            @QueryParam("after") String after) {
        int pageSize = Validate.queryInt("limit", limit, 50, 1, config.limits().pageMax());
        Long cursor = Validate.cursor(after);
        JobFilter filter = new JobFilter(
                queue == null ? null : Validate.queueName("queue", queue),
                type == null ? null : Validate.typeName(type),
                Validate.statuses(status),
                tag == null ? null : Validate.text("tag", tag, 100, true),
                cursor, pageSize);
        List<JobRow> rows = broker.list(filter);
        return Responses.Page.of(rows, pageSize);
    }

    @POST
    @Path("/{id}/cancel")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Operators")
    @Operation(summary = "Cancel a job",
            description = "A PENDING job becomes CANCELLED at once. A LEASED or PROCESSING job gets cancelRequested "
                    + "(its worker sees it on the next heartbeat) and becomes CANCELLED when the worker fails or "
                    + "releases it, or its lease expires. 409 for a SUCCEEDED or DEAD job. Cancelling a "
                    + "CANCELLED job changes nothing. No request body." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The job: CANCELLED, or still LEASED/PROCESSING with "
            + "cancelRequested true.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "cancelRequested", value = ApiDocs.JOB_CANCEL_REQUESTED)))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", description = "The job is SUCCEEDED or DEAD and can no longer be cancelled "
            + "(or it kept changing state; retry).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "finished", value = ApiDocs.PROBLEM_CANCEL_CONFLICT)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public JobView cancel(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id) {
        return JobView.of(broker.cancel(Validate.jobId(id), caller.name()));
    }

    @POST
    @Path("/{id}/requeue")
    @Tag(name = "Operators")
    @Operation(summary = "Requeue a DEAD or CANCELLED job",
            description = "Back to PENDING, due now, with attempts reset; an optional 'payload' replaces the old one. "
                    + "The body is optional." + ApiDocs.ROLE_ADMIN)
    @RequestBody(required = false, description = "Optional: a new payload.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Requeue.class),
                    examples = {
                            @ExampleObject(name = "newPayload", value = ApiDocs.REQUEUE_BODY),
                            @ExampleObject(name = "asItWas", summary = "Keep the payload", value = "{}")}))
    @APIResponse(responseCode = "200", description = "The job, PENDING again with attempt 0.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "requeued", value = ApiDocs.JOB_REQUEUED)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", description = "The job is not DEAD or CANCELLED, or a live job now holds its "
            + "idempotency key.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFinished", value = ApiDocs.PROBLEM_REQUEUE_CONFLICT)))
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public JobView requeue(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
                           Requests.Requeue body) {
        long jobId = Validate.jobId(id);
        String payload = body == null || body.payload() == null || body.payload().isNull()
                ? null : jsonText("payload", body.payload());
        return JobView.of(broker.requeue(jobId, payload, caller.name()));
    }

    @DELETE
    @Path("/{id}")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Operators")
    @Operation(summary = "Delete a finished job (SUCCEEDED, CANCELLED or DEAD) for good",
            description = "Removes the job from the archive or the dead letters. A PENDING, LEASED or PROCESSING job "
                    + "cannot be deleted (409): cancel it first." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "204", description = "Deleted.")
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", description = "The job is not finished (PENDING, LEASED or PROCESSING).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFinished", value = ApiDocs.PROBLEM_PURGE_CONFLICT)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Response purge(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id) {
        broker.purge(Validate.jobId(id), caller.name());
        return Response.noContent().build();
    }

    @GET
    @Consumes(MediaType.WILDCARD)
    @Path("/{id}")
    @Allowed(Role.PRODUCER)
    @Tag(name = "Producers")
    @Operation(summary = "Read a job, wherever it lives (pending, running, archived or dead)",
            description = "The job in any status, until it is deleted (DELETE /jobs/{id} or retention). For a "
                    + "queue-scoped key, a job of another queue is 404, like a missing one." + ApiDocs.ROLE_PRODUCER)
    @APIResponse(responseCode = "200", description = "The job (without leaseId).",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = {
                            @ExampleObject(name = "pending", value = ApiDocs.JOB_PENDING),
                            @ExampleObject(name = "succeeded", value = ApiDocs.JOB_SUCCEEDED)}))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No job with this id, or (queue-scoped key) the job is in a "
            + "queue outside the key's scope.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_JOB_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public JobView get(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id) {
        long jobId = Validate.jobId(id);
        JobRow row = broker.get(jobId);
        if (!caller.mayUseQueue(row.queue())) {
            // a queue-scoped key cannot tell other queues' jobs from missing ones
            throw BrokerException.jobNotFound(jobId);
        }
        return JobView.of(row);
    }

    @POST
    @Path("/{id}/heartbeat")
    @Allowed(Role.WORKER)
    @Tag(name = "Workers")
    @Operation(summary = "Extend a lease; the first heartbeat marks the job PROCESSING",
            description = "The lease runs leaseSeconds from now (default: its current length); progress, when given, "
                    + "is stored on the job. Check cancelRequested in the answer: when true, stop and fail or "
                    + "release the job." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The lease to extend.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Heartbeat.class),
                    examples = {
                            @ExampleObject(name = "withProgress", value = ApiDocs.HEARTBEAT_BODY),
                            @ExampleObject(name = "minimal", value = ApiDocs.RELEASE_BODY)}))
    @APIResponse(responseCode = "200", description = "The lease was extended.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.HeartbeatAck.class),
                    examples = @ExampleObject(name = "extended", value = ApiDocs.HEARTBEAT_ACK)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", ref = ApiDocs.LEASE_CONFLICT)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.HeartbeatAck heartbeat(
            @Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
            Requests.Heartbeat body) {
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
    @Allowed(Role.WORKER)
    @Tag(name = "Workers")
    @Operation(summary = "Report success; the job becomes SUCCEEDED",
            description = "The caller must hold the lease (leaseId from the claim). The job moves to the archive "
                    + "with the optional result." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The lease and an optional result.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Complete.class),
                    examples = @ExampleObject(name = "withResult", value = ApiDocs.COMPLETE_BODY)))
    @APIResponse(responseCode = "200", description = "The job, SUCCEEDED.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "succeeded", value = ApiDocs.JOB_SUCCEEDED)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", ref = ApiDocs.LEASE_CONFLICT)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public JobView complete(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
                            Requests.Complete body) {
        long jobId = Validate.jobId(id);
        Requests.Complete b = Validate.body(body);
        String leaseId = Validate.leaseId(b.leaseId());
        String result = b.result() == null ? null : jsonText("result", b.result());
        return JobView.of(broker.complete(jobId, leaseId, result, caller.name()));
    }

    @POST
    @Path("/{id}/fail")
    @Allowed(Role.WORKER)
    @Tag(name = "Workers")
    @Operation(summary = "Report failure; retried after a backoff, or DEAD when attempts are used up",
            description = "With attempts left and retryable (the default), the job is PENDING again, due after "
                    + "retryAfterSeconds or the exponential backoff. With attempts used up or retryable false it "
                    + "becomes DEAD (a dead letter). A job with cancelRequested becomes CANCELLED." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The lease and what went wrong.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Fail.class),
                    examples = {
                            @ExampleObject(name = "retryable", value = ApiDocs.FAIL_BODY),
                            @ExampleObject(name = "fatal", value = ApiDocs.FAIL_BODY_FATAL)}))
    @APIResponse(responseCode = "200", description = "The job: PENDING with a later runAt, DEAD, or CANCELLED.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = {
                            @ExampleObject(name = "retry", value = ApiDocs.JOB_RETRY),
                            @ExampleObject(name = "dead", value = ApiDocs.JOB_DEAD)}))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", ref = ApiDocs.LEASE_CONFLICT)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public JobView fail(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
                        Requests.Fail body) {
        long jobId = Validate.jobId(id);
        Requests.Fail b = Validate.body(body);
        String leaseId = Validate.leaseId(b.leaseId());
        String error = b.error() == null ? "failed" : b.error();
        if (error.length() > 10_000) {
            throw BrokerException.invalid("'error' must be at most 10000 characters.");
        }
        Validate.noControlCharacters("error", error);
        Long after = Validate.optionalRange("retryAfterSeconds", b.retryAfterSeconds(), 0L, MAX_DELAY_SECONDS);
        boolean retryable = b.retryable() == null || b.retryable();
        return JobView.of(broker.fail(jobId, leaseId, error, retryable, after == null ? null : Duration.ofSeconds(after),
                caller.name()));
    }

    @POST
    @Path("/{id}/release")
    @Allowed(Role.WORKER)
    @Tag(name = "Workers")
    @Operation(summary = "Give a leased job back unworked, without spending an attempt",
            description = "For a worker shutting down: the job is PENDING again, keeps its place in line, and the "
                    + "attempt the claim counted is given back. A job with cancelRequested becomes CANCELLED."
                    + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The lease to give back.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Release.class),
                    examples = @ExampleObject(name = "release", value = ApiDocs.RELEASE_BODY)))
    @APIResponse(responseCode = "200", description = "The job: PENDING (or CANCELLED).",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "released", value = ApiDocs.JOB_PENDING)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", ref = ApiDocs.LEASE_CONFLICT)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public JobView release(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
                           Requests.Release body) {
        long jobId = Validate.jobId(id);
        String leaseId = Validate.leaseId(Validate.body(body).leaseId());
        return JobView.of(broker.release(jobId, leaseId, caller.name()));
    }

    /** Validates one enqueue request and turns it into the broker's command. */
    Broker.NewJobRequest toNewJob(Requests.Enqueue b) {
        String queue = Validate.queueName("queue", b.queue());
        if (!caller.mayUseQueue(queue)) {
            throw BrokerException.forbiddenQueue(queue);
        }
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
            } catch (java.time.DateTimeException e) {
                throw BrokerException.invalid("'runAt' must be an ISO-8601 date-time with offset, "
                        + "e.g. 2030-01-01T12:00:00Z.");
            }
            // both engines can store these (SQL Server's datetime2 ends with year 9999)
            if (runAt.isBefore(RUN_AT_MIN) || runAt.isAfter(RUN_AT_MAX)) {
                throw BrokerException.invalid("'runAt' must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.");
            }
        }
        String tags = tagsJson(b.tags());
        Integer maxAttempts = Validate.optionalRange("maxAttempts", b.maxAttempts(), 1, 1000);
        String key = Validate.text("idempotencyKey", b.idempotencyKey(), Validate.NAME_MAX, false);
        String webhookUrl = io.readpast.webhook.WebhookUrls.check("webhookUrl", b.webhookUrl(), config.webhooks());
        return new Broker.NewJobRequest(queue, type, payload, tags, key, priority, maxAttempts, runAt,
                delaySeconds * 1000, caller.name(), webhookUrl, JobOptions.expiresAt(b.expiresAt(), runAt),
                JobOptions.uniqueFor(b.uniqueFor()), Validate.text("groupKey", b.groupKey(), Validate.NAME_MAX, false));
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
        if (progress.message() != null) {
            Validate.noControlCharacters("progress.message", progress.message());
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
