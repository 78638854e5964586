package io.readpast.api.batches;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.JobBodies;
import io.readpast.api.http.ProblemMappers;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Validate;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Batches;
import io.readpast.core.BrokerException;
import io.readpast.core.Enqueuer;
import io.readpast.http.Problem;
import io.readpast.security.Allowed;
import io.readpast.security.Caller;
import io.readpast.security.Role;
import io.readpast.store.BatchRow;
import io.readpast.store.JobLinks;
import io.readpast.store.JobRow;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Batches (docs/batches.md): jobs created together whose callback job and webhook fire once,
 * when the batch settles. A key sees and changes a batch only when its queue scope covers
 * every queue of the batch (its jobs' and its callback's); otherwise the batch does not exist
 * for it.
 */
@Path("/batches")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class BatchResource {

    static final String BATCH_VIEW = "{\"id\": \"7\", \"state\": \"RUNNING\", \"fireOn\": \"completion\", "
            + "\"queues\": [\"emails\", \"reports\"], \"total\": 3, \"succeeded\": 1, \"dead\": 0, \"cancelled\": 0, "
            + "\"waiting\": 0, \"pending\": 1, \"active\": 1, \"callback\": {\"queue\": \"reports\", \"type\": "
            + "\"batch-done\", \"payload\": {\"report\": 7}, \"priority\": 0, \"maxAttempts\": null}, \"callbackJobId\": "
            + "null, \"webhookUrl\": null, \"createdBy\": \"shop\", \"createdAt\": \"2030-01-01T12:00:00Z\", \"closedAt\": "
            + "\"2030-01-01T12:00:00Z\", \"finishedAt\": null, \"firedAt\": null, \"cancelledAt\": null, \"jobs\": null}";
    static final String CREATE_BODY = "{\"jobs\": [{\"queue\": \"emails\", \"type\": \"send\", \"payload\": {\"to\": "
            + "\"a@b.c\"}}, {\"queue\": \"emails\", \"type\": \"send\", \"payload\": {\"to\": \"d@e.f\"}}], "
            + "\"callback\": {\"queue\": \"reports\", \"type\": \"batch-done\", \"payload\": {\"report\": 7}}, "
            + "\"fireOn\": \"completion\"}";
    static final String ADD_BODY = "{\"jobs\": [{\"queue\": \"emails\", \"type\": \"send\", \"payload\": {\"to\": "
            + "\"g@h.i\"}}]}";
    static final String PROBLEM_MISSING = "{\"type\": \"urn:readpast:problem:not-found\", \"title\": \"Not Found\", "
            + "\"status\": 404, \"detail\": \"There is no batch 7.\"}";
    static final String PROBLEM_CLOSED = "{\"type\": \"urn:readpast:problem:state-conflict\", \"title\": \"Conflict\", "
            + "\"status\": 409, \"detail\": \"Batch 7 is closed: no job can join it now.\"}";

    private final Batches batches;
    private final JobBodies bodies;
    private final ObjectMapper mapper;
    private final Caller caller;
    private final ReadpastConfig config;

    public BatchResource(Batches batches, JobBodies bodies, ObjectMapper mapper, Caller caller, ReadpastConfig config) {
        this.batches = batches;
        this.bodies = bodies;
        this.mapper = mapper;
        this.caller = caller;
        this.config = config;
    }

    @Schema(description = "A batch and its progress. state: OPEN (jobs may still join), RUNNING (closed, jobs left), "
            + "FINISHED (closed and every job finished). Counts: total jobs, finished ones by outcome, and the ones "
            + "still in the hot table by state.")
    @JsonPropertyOrder({"id", "state", "fireOn", "queues", "total", "succeeded", "dead", "cancelled", "waiting", "pending",
            "active", "callback", "callbackJobId", "webhookUrl", "createdBy", "createdAt", "closedAt", "finishedAt",
            "firedAt", "cancelledAt", "jobs"})
    public record BatchView(
            @Schema(description = "Batch id: a positive integer, as a string.", examples = "7") String id,
            @Schema(enumeration = {"OPEN", "RUNNING", "FINISHED"}, examples = "RUNNING") String state,
            @Schema(enumeration = {"completion", "success", "death"}, examples = "completion") String fireOn,
            @Schema(description = "The queues of its jobs and of its callback.") List<String> queues,
            @Schema(examples = "3") int total,
            @Schema(examples = "1") int succeeded,
            @Schema(examples = "0") int dead,
            @Schema(examples = "0") int cancelled,
            @Schema(nullable = true, description = "Jobs WAITING for their parents (GET /batches/{id} only).") Long waiting,
            @Schema(nullable = true, description = "Jobs PENDING (GET /batches/{id} only).") Long pending,
            @Schema(nullable = true, description = "Jobs LEASED or PROCESSING (GET /batches/{id} only).") Long active,
            @Schema(type = org.eclipse.microprofile.openapi.annotations.enums.SchemaType.OBJECT, nullable = true,
                    description = "The callback job enqueued when the batch fires (as POST /jobs takes it); null: none.")
            @JsonRawValue String callback,
            @Schema(nullable = true, description = "The callback job, once enqueued.", examples = "57") String callbackJobId,
            @Schema(nullable = true, description = "Where the batch.fired webhook goes; null: none.") String webhookUrl,
            @Schema(nullable = true, description = "The API key that created it.") String createdBy,
            Instant createdAt,
            @Schema(nullable = true) Instant closedAt,
            @Schema(nullable = true, description = "When it was closed and every job had finished.") Instant finishedAt,
            @Schema(nullable = true, description = "When its callback fired (once, or never).") Instant firedAt,
            @Schema(nullable = true, description = "When an operator cancelled it.") Instant cancelledAt,
            @Schema(nullable = true, description = "The ids of the jobs this request added (create and add only).")
            List<String> jobs) {

        static BatchView of(BatchRow b, List<JobRow> added) {
            String callback = null;
            if (b.callback() != null) {
                try {
                    com.fasterxml.jackson.databind.node.ObjectNode c = (com.fasterxml.jackson.databind.node.ObjectNode)
                            io.readpast.store.Json.mapper().readTree(b.callback());
                    c.remove("defaultMaxAttempts");
                    callback = c.toString();
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    throw new IllegalStateException(e);
                }
            }
            return new BatchView(Long.toString(b.id()), !b.closed() ? "OPEN" : b.finished() ? "FINISHED" : "RUNNING",
                    fireOnName(b.fireOn()), b.queues(), b.total(), b.succeeded(), b.dead(), b.cancelled(), b.waiting(),
                    b.pending(), b.active(), callback, b.callbackJobId() == null ? null : Long.toString(b.callbackJobId()),
                    b.webhookUrl(), b.createdBy(), b.createdAt(), b.closedAt(), b.finishedAt(), b.firedAt(), b.cancelledAt(),
                    added == null ? null : added.stream().map(j -> Long.toString(j.id())).toList());
        }
    }

    @Schema(description = "A page of batches, newest first.")
    public record BatchPage(List<BatchView> batches,
                            @Schema(nullable = true, description = "Pass as 'after' for the next page; null: last page.")
                            String next) {
    }

    static String fireOnName(int code) {
        return switch (code) {
            case BatchRow.FIRE_ON_SUCCESS -> "success";
            case BatchRow.FIRE_ON_DEATH -> "death";
            default -> "completion";
        };
    }

    @POST
    @Tag(name = "Batches")
    @Operation(operationId = "createBatch", summary = "Create a batch of jobs",
            description = "Creates the batch and its jobs in one transaction. When the batch has settled (closed, and "
                    + "every job finished; or at the first DEAD job with fireOn death), the callback job is enqueued and "
                    + "the webhook sent, exactly once across all broker instances. A job of the batch may name "
                    + "dependsOn (not the batch itself). Closed at once unless open is true." + ApiDocs.ROLE_PRODUCER)
    @RequestBody(required = true, content = @Content(mediaType = ApiDocs.JSON,
            schema = @Schema(implementation = Requests.CreateBatch.class),
            examples = @ExampleObject(name = "batch", value = CREATE_BODY)))
    @APIResponse(responseCode = "201", description = "The batch, with the ids of its jobs.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = BatchView.class),
                    examples = @ExampleObject(name = "batch", value = BATCH_VIEW)))
    @APIResponse(responseCode = "400", description = "Invalid batch: a job, the callback, fireOn, or a dependsOn id "
            + "('detail' says which; nothing was created).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "malformed", value = ApiDocs.PROBLEM_MALFORMED)))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "409", description = "A dependsOn parent already ended DEAD or CANCELLED.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "closed", value = PROBLEM_CLOSED)))
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    @Allowed(Role.PRODUCER)
    public Response create(Requests.CreateBatch body) {
        Requests.CreateBatch b = Validate.body(body);
        boolean open = Boolean.TRUE.equals(b.open());
        List<JsonNode> items = b.jobs() == null ? List.of() : b.jobs();
        if (!open || !items.isEmpty()) {
            Validate.batchSize("jobs", items, config.limits().batchMax());
        }
        Jobs jobs = jobs(items);
        Batches.Callback callback = callback(b.callback());
        String webhookUrl = io.readpast.webhook.WebhookUrls.check("webhookUrl", b.webhookUrl(), config.webhooks());
        int fireOn = switch (b.fireOn() == null ? "completion" : b.fireOn()) {
            case "completion" -> BatchRow.FIRE_ON_COMPLETION;
            case "success" -> BatchRow.FIRE_ON_SUCCESS;
            case "death" -> BatchRow.FIRE_ON_DEATH;
            default -> throw BrokerException.invalid("'fireOn' takes completion, success or death; got '"
                    + Validate.printable(b.fireOn()) + "'.");
        };
        Batches.Change c = batches.create(jobs.requests(), jobs.links(), callback, webhookUrl, fireOn, open, caller.name());
        return Response.created(URI.create("/batches/" + c.batch().id())).entity(BatchView.of(c.batch(), c.jobs())).build();
    }

    @POST
    @Path("/{id}/jobs")
    @Tag(name = "Batches")
    @Operation(operationId = "addToBatch", summary = "Add jobs to an open batch",
            description = "In one transaction. 409 once the batch is closed." + ApiDocs.ROLE_PRODUCER)
    @RequestBody(required = true, content = @Content(mediaType = ApiDocs.JSON,
            schema = @Schema(implementation = Requests.AddToBatch.class),
            examples = @ExampleObject(name = "jobs", value = ADD_BODY)))
    @APIResponse(responseCode = "200", description = "The batch, with the ids of the jobs added.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = BatchView.class),
                    examples = @ExampleObject(name = "batch", value = BATCH_VIEW)))
    @APIResponse(responseCode = "400", description = "Invalid jobs, or a dependsOn that would make the batch wait for "
            + "itself (a cycle).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "malformed", value = ApiDocs.PROBLEM_MALFORMED)))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No such batch (or one outside the key's queue scope).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "missing", value = PROBLEM_MISSING)))
    @APIResponse(responseCode = "409", description = "The batch is closed.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "closed", value = PROBLEM_CLOSED)))
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    @Allowed(Role.PRODUCER)
    public BatchView add(@Parameter(description = "Batch id.", example = "7") @PathParam("id") String id,
                         Requests.AddToBatch body) {
        long batch = visible(id).id();
        Requests.AddToBatch b = Validate.body(body);
        Validate.batchSize("jobs", b.jobs(), config.limits().batchMax());
        Jobs jobs = jobs(b.jobs());
        Batches.Change c = batches.add(batch, jobs.requests(), jobs.links());
        return BatchView.of(c.batch(), c.jobs());
    }

    @POST
    @Path("/{id}/close")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Batches")
    @Operation(operationId = "closeBatch", summary = "Close an open batch",
            description = "No job joins it after this. It fires once its jobs have finished (at once if they have)."
                    + ApiDocs.ROLE_PRODUCER)
    @APIResponse(responseCode = "200", description = "The closed batch.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = BatchView.class),
                    examples = @ExampleObject(name = "batch", value = BATCH_VIEW)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No such batch (or one outside the key's queue scope).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "missing", value = PROBLEM_MISSING)))
    @APIResponse(responseCode = "409", description = "The batch is closed already.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "closed", value = PROBLEM_CLOSED)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    @Allowed(Role.PRODUCER)
    public BatchView close(@Parameter(description = "Batch id.", example = "7") @PathParam("id") String id) {
        return BatchView.of(batches.close(visible(id).id()), null);
    }

    @POST
    @Path("/{id}/cancel")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Batches")
    @Operation(operationId = "cancelBatch", summary = "Cancel a batch",
            description = "Closes it; its jobs nobody holds (PENDING, WAITING) become CANCELLED, those LEASED or "
                    + "PROCESSING get cancel requested and end CANCELLED when their worker gives them up. The batch "
                    + "then settles as usual (fireOn completion fires, with the cancelled count). Repeating it is "
                    + "harmless." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The batch after the cancel.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = BatchView.class),
                    examples = @ExampleObject(name = "batch", value = BATCH_VIEW)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No such batch (or one outside the key's queue scope).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "missing", value = PROBLEM_MISSING)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    @Allowed(Role.ADMIN)
    public BatchView cancel(@Parameter(description = "Batch id.", example = "7") @PathParam("id") String id) {
        return BatchView.of(batches.cancel(visible(id).id(), caller.name()), null);
    }

    @GET
    @Path("/{id}")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Batches")
    @Operation(operationId = "getBatch", summary = "A batch's progress", description = "Counts by outcome and by live state." + ApiDocs.ROLE_PRODUCER)
    @APIResponse(responseCode = "200", description = "The batch.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = BatchView.class),
                    examples = @ExampleObject(name = "batch", value = BATCH_VIEW)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No such batch (or one outside the key's queue scope).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "missing", value = PROBLEM_MISSING)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    @Allowed(Role.PRODUCER)
    public BatchView get(@Parameter(description = "Batch id.", example = "7") @PathParam("id") String id) {
        return BatchView.of(visible(id), null);
    }

    @GET
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Batches")
    @Operation(operationId = "listBatches", summary = "Batches, newest first",
            description = "Keyset pages: pass 'next' as 'after'. A queue-scoped key sees the batches its scope covers."
                    + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "A page of batches.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = BatchPage.class),
                    examples = @ExampleObject(name = "page", value = "{\"batches\": [" + BATCH_VIEW + "], \"next\": null}")))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    @Allowed(Role.ADMIN)
    public BatchPage list(@Parameter(description = "The last id of the previous page.", example = "7")
                          @QueryParam("after") String after,
                          @Parameter(description = "Page size, 1-500.", example = "50") @QueryParam("limit") String limit) {
        int n = Validate.queryInt("limit", limit, 50, 1, 500);
        Long from = after == null || after.isEmpty() ? null : Validate.jobId(after);
        List<BatchRow> rows = batches.list(from, n);
        List<BatchView> out = new ArrayList<>();
        for (BatchRow r : rows) {
            if (r.queues().stream().allMatch(caller::mayUseQueue)) {
                out.add(BatchView.of(r, null));
            }
        }
        return new BatchPage(out, rows.size() < n ? null : Long.toString(rows.get(rows.size() - 1).id()));
    }

    /** The batch, if the caller's scope covers all its queues; else, as for a missing one, 404. */
    private BatchRow visible(String raw) {
        long id;
        try {
            id = Validate.jobId(raw);
        } catch (BrokerException e) {
            throw BrokerException.invalid("A batch id is a positive integer; got '" + Validate.printable(raw) + "'.");
        }
        BatchRow b = batches.get(id);
        if (!b.queues().stream().allMatch(caller::mayUseQueue)) {
            throw Batches.notFound(id);
        }
        return b;
    }

    private record Jobs(List<Enqueuer.NewJobRequest> requests, List<JobLinks> links) {
    }

    /** Every item valid, or 400 naming the first that is not (a batch is all or nothing). */
    private Jobs jobs(List<JsonNode> items) {
        List<Enqueuer.NewJobRequest> requests = new ArrayList<>(items.size());
        List<JobLinks> links = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            JsonNode node = items.get(i);
            try {
                if (node == null || !node.isObject()) {
                    throw BrokerException.invalid("must be a JSON object.");
                }
                Requests.Enqueue item = mapper.treeToValue(node, Requests.Enqueue.class);
                JobBodies.refuseDebounce(item);
                requests.add(bodies.toNewJob(item, null));
                links.add(JobBodies.links(item));
            } catch (BrokerException e) {
                if (e.kind() != BrokerException.Kind.INVALID) {
                    throw e;
                }
                throw BrokerException.invalid("jobs[" + i + "]: " + e.getMessage());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw BrokerException.invalid("jobs[" + i + "]: " + ProblemMappers.describe(e));
            }
        }
        return new Jobs(requests, links);
    }

    private Batches.Callback callback(Requests.Callback c) {
        if (c == null) {
            return null;
        }
        String queue = Validate.queueName("callback.queue", c.queue());
        caller.requireQueue(queue);
        String type = Validate.typeName(c.type());
        String payload = c.payload() == null ? "null" : bodies.jsonText("callback.payload", c.payload());
        Integer maxAttempts = Validate.optionalRange("callback.maxAttempts", c.maxAttempts(), 1, 1000);
        return new Batches.Callback(queue, type, payload, c.priority() == null ? 0 : c.priority(), maxAttempts);
    }
}
