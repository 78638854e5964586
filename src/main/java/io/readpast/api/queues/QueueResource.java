package io.readpast.api.queues;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.api.http.Validate;
import io.readpast.http.Problem;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Queues;
import io.readpast.store.QueueSettings;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;


/** Queue settings: max workers, pause, defaults. */
@Path("/queues")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class QueueResource {

    private static final long DAY = 24 * 3600;

    private final Queues queues;
    private final ReadpastConfig config;
    private final io.readpast.security.Caller caller;

    public QueueResource(Queues queues, ReadpastConfig config, io.readpast.security.Caller caller) {
        this.queues = queues;
        this.config = config;
        this.caller = caller;
    }

    @PUT
    @Path("/{name}")
    @Tag(name = "Queues")
    @Operation(operationId = "setQueue", summary = "Create or replace a queue's settings",
            description = "Absent fields take their defaults: maxWorkers null (unlimited), paused false, active true, "
                    + "and the broker's lease, attempt and backoff defaults. Settings apply to the next claims; "
                    + "jobs already enqueued keep their maxAttempts." + ApiDocs.ROLE_ADMIN)
    @RequestBody(required = true, description = "The queue's settings; {} resets them all to the defaults.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Queue.class),
                    examples = {
                            @ExampleObject(name = "capped", value = ApiDocs.QUEUE_BODY),
                            @ExampleObject(name = "defaults", summary = "Every setting at its default", value = "{}")}))
    @APIResponse(responseCode = "200", description = "The queue with its new settings and job counts.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.QueueView.class),
                    examples = @ExampleObject(name = "queue", value = ApiDocs.QUEUE_VIEW)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.QueueView put(@Parameter(description = ApiDocs.QUEUE_NAME_PARAM, example = "emails")
                                   @PathParam("name") String name, Requests.Queue body) {
        String queue = Validate.queueName("name", name);
        Requests.Queue b = Validate.body(body);
        Integer maxWorkers = Validate.optionalRange("maxWorkers", b.maxWorkers(), 0, 1_000_000);
        Integer lease = Validate.optionalRange("leaseSeconds", b.leaseSeconds(),
                config.limits().leaseMinSeconds(), config.limits().leaseMaxSeconds());
        Integer maxAttempts = Validate.optionalRange("maxAttempts", b.maxAttempts(), 1, 1000);
        Long base = Validate.optionalRange("backoffBaseSeconds", b.backoffBaseSeconds(), 0L, DAY);
        Long cap = Validate.optionalRange("backoffCapSeconds", b.backoffCapSeconds(), 0L, 30 * DAY);
        String webhookUrl = io.readpast.webhook.WebhookUrls.check("webhookUrl", b.webhookUrl(), config.webhooks());
        Integer rateLimit = Validate.optionalRange("rateLimit", b.rateLimit(), 0, 1_000_000);
        Integer ratePeriod = Validate.optionalRange("ratePeriodSeconds", b.ratePeriodSeconds(), 1, 86_400);
        if ((rateLimit == null) != (ratePeriod == null)) {
            throw io.readpast.core.BrokerException.invalid("Give 'rateLimit' and 'ratePeriodSeconds' together "
                    + "(or neither, for no rate limit).");
        }
        var settings = new QueueSettings(queue, maxWorkers, Boolean.TRUE.equals(b.paused()),
                b.active() == null || b.active(), lease, maxAttempts,
                base == null ? null : base * 1000, cap == null ? null : cap * 1000, webhookUrl,
                rateLimit, ratePeriod == null ? null : ratePeriod * 1000L, fairness(b), deleteSucceeded(b));
        return Responses.QueueView.of(queues.put(settings, caller.name()));
    }

    @GET
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Queues")
    @Operation(operationId = "listQueues", summary = "List queues with their job counts and lag",
            description = "Every queue that has jobs or settings. Inactive queues are listed only with ?all=true. "
                    + "lagSeconds is the age of the oldest due job, on the database clock." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The queues, by name.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.QueueList.class),
                    examples = @ExampleObject(name = "queues", value = ApiDocs.QUEUE_LIST)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.QueueList list(@Parameter(description = "true lists inactive queues too; absent: false.",
                                            example = "false", schema = @Schema(type = SchemaType.BOOLEAN))
                                    @jakarta.ws.rs.QueryParam("all") String all) {
        return new Responses.QueueList(queues.list(Validate.queryBoolean("all", all, false)).stream()
                .map(Responses.QueueView::of).toList());
    }

    @jakarta.ws.rs.POST
    @Path("/{name}/pause")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Queues")
    @Operation(operationId = "pauseQueue", summary = "Pause a queue: nothing in it is claimed until it is resumed",
            description = "Sets paused, keeping the other settings. The queue must exist (a job was enqueued into it, "
                    + "or PUT made it): an unknown name is 404, never a new queue. Jobs already leased are not affected. "
                    + "No request body." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The queue, paused.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.QueueView.class),
                    examples = @ExampleObject(name = "paused", value = ApiDocs.QUEUE_VIEW_PAUSED)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No queue with this name (PUT creates one).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_QUEUE_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.QueueView pause(@Parameter(description = ApiDocs.QUEUE_NAME_PARAM, example = "emails")
                                     @PathParam("name") String name) {
        return Responses.QueueView.of(queues.pause(Validate.queueName("name", name), true, caller.name()));
    }

    @jakarta.ws.rs.POST
    @Path("/{name}/resume")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Queues")
    @Operation(operationId = "resumeQueue", summary = "Resume a paused queue",
            description = "Clears paused, keeping the other settings. The queue must exist: an unknown name is 404. "
                    + "No request body." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The queue, not paused.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.QueueView.class),
                    examples = @ExampleObject(name = "resumed", value = ApiDocs.QUEUE_VIEW)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No queue with this name (PUT creates one).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_QUEUE_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.QueueView resume(@Parameter(description = ApiDocs.QUEUE_NAME_PARAM, example = "emails")
                                      @PathParam("name") String name) {
        return Responses.QueueView.of(queues.pause(Validate.queueName("name", name), false, caller.name()));
    }

    @GET
    @Consumes(MediaType.WILDCARD)
    @Path("/{name}")
    @Tag(name = "Queues")
    @Operation(operationId = "getQueue", summary = "Read a queue's settings and job counts",
            description = "Settings (null: the broker default applies), job counts by status and lag. A queue exists "
                    + "once a job was enqueued into it or PUT configured it." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The queue.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.QueueView.class),
                    examples = @ExampleObject(name = "queue", value = ApiDocs.QUEUE_VIEW)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No queue with this name.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_QUEUE_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.QueueView get(@Parameter(description = ApiDocs.QUEUE_NAME_PARAM, example = "emails")
                                   @PathParam("name") String name) {
        return Responses.QueueView.of(queues.get(Validate.queueName("name", name)));
    }

    @jakarta.ws.rs.DELETE
    @Path("/{name}")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Queues")
    @Operation(operationId = "deleteQueue", summary = "Delete a queue that holds no jobs",
            description = "Removes the queue from GET /queues and the dashboard, its settings with it. Refused (409) "
                    + "while it holds unfinished jobs (PENDING, SCHEDULED, WAITING, LEASED, PROCESSING), dead letters, or "
                    + "a schedule enqueues into it. Its finished jobs (SUCCEEDED, CANCELLED) stay readable until "
                    + "retention deletes them; purge=true deletes them and its dead letters at once, in bounded "
                    + "transactions. A later enqueue into the name brings the queue back with default settings. "
                    + "Logged with the key that did it. No request body." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "204", description = "Deleted.")
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No queue with this name.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_QUEUE_NOT_FOUND)))
    @APIResponse(responseCode = "409", description = "The queue still holds jobs or a schedule enqueues into it; the "
            + "detail says what.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "inUse", value = ApiDocs.PROBLEM_QUEUE_IN_USE)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public jakarta.ws.rs.core.Response delete(@Parameter(description = ApiDocs.QUEUE_NAME_PARAM, example = "emails")
                                              @PathParam("name") String name,
                                              @Parameter(description = "true: first delete the queue's finished jobs "
                                                      + "and dead letters for good; absent: false.", example = "false",
                                                      schema = @Schema(type = SchemaType.BOOLEAN))
                                              @jakarta.ws.rs.QueryParam("purge") String purge) {
        queues.delete(Validate.queueName("name", name), Validate.queryBoolean("purge", purge, false), caller.name());
        return jakarta.ws.rs.core.Response.noContent().build();
    }

    @GET
    @Consumes(MediaType.WILDCARD)
    @Path("/{name}/keys")
    @Tag(name = "Queues")
    @Operation(operationId = "getQueueKeys", summary = "A queue's fairness keys with their pending and active jobs",
            description = "Each fairness key of the queue's unfinished jobs: pending (due or scheduled) and active "
                    + "(LEASED or PROCESSING) counts, most pending first, at most 'limit' keys (1-1000, default "
                    + "100). The dashboard's per-key view of a fair queue." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The queue's keys.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.QueueKeys.class),
                    examples = @ExampleObject(name = "keys", value = ApiDocs.QUEUE_KEYS)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No queue with this name.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_QUEUE_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.QueueKeys keys(@Parameter(description = ApiDocs.QUEUE_NAME_PARAM, example = "reports")
                                    @PathParam("name") String name,
                                    @Parameter(description = "Most keys to list (1-1000); absent: 100.", example = "100",
                                            schema = @Schema(type = SchemaType.INTEGER))
                                    @jakarta.ws.rs.QueryParam("limit") String limit) {
        String queue = Validate.queueName("name", name);
        int n = Validate.queryInt("limit", limit, 100, 1, 1000);
        var row = queues.get(queue);
        return new Responses.QueueKeys(queue, row.fairness().fair() ? "round-robin" : null,
                row.fairness().keyMaxWorkers(), queues.keys(queue, n).stream()
                .map(k -> new Responses.KeyCount(k.key(), k.pending(), k.active())).toList());
    }

    /** The fairness settings of a PUT: round-robin, and the per-key limits (which imply it). */
    private static QueueSettings.Fairness fairness(Requests.Queue b) {
        if (b.fairness() != null && !b.fairness().equals("round-robin")) {
            throw io.readpast.core.BrokerException.invalid("'fairness' takes round-robin (or null for none); got '"
                    + Validate.printable(b.fairness()) + "'.");
        }
        Integer keyMax = Validate.optionalRange("keyMaxWorkers", b.keyMaxWorkers(), 1, 1_000_000);
        Integer keyRate = Validate.optionalRange("keyRateLimit", b.keyRateLimit(), 1, 1_000_000);
        Integer keyPeriod = Validate.optionalRange("keyRatePeriodSeconds", b.keyRatePeriodSeconds(), 1, 86_400);
        if ((keyRate == null) != (keyPeriod == null)) {
            throw io.readpast.core.BrokerException.invalid("Give 'keyRateLimit' and 'keyRatePeriodSeconds' together "
                    + "(or neither, for no per-key rate limit).");
        }
        boolean fair = b.fairness() != null || keyMax != null || keyRate != null;
        return fair ? new QueueSettings.Fairness(true, keyMax, keyRate, keyPeriod == null ? null : keyPeriod * 1000L)
                : QueueSettings.Fairness.NONE;
    }

    /** onSuccess: archive (absent, null) or delete; anything else is refused, naming the field. */
    private static boolean deleteSucceeded(Requests.Queue b) {
        if (b.onSuccess() == null || b.onSuccess().equals("archive")) {
            return false;
        }
        if (b.onSuccess().equals("delete")) {
            return true;
        }
        throw io.readpast.core.BrokerException.invalid("'onSuccess' must be \"archive\" or \"delete\".");
    }
}
