package io.readpast.api;

import io.readpast.config.ReadpastConfig;
import io.readpast.core.Broker;
import io.readpast.store.QueueSettings;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;


/** Queue settings: max workers, pause, defaults. */
@Path("/queues")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class QueueResource {

    private static final long DAY = 24 * 3600;

    private final Broker broker;
    private final ReadpastConfig config;

    public QueueResource(Broker broker, ReadpastConfig config) {
        this.broker = broker;
        this.config = config;
    }

    @PUT
    @Path("/{name}")
    @Tag(name = "Queues")
    @Operation(summary = "Create or replace a queue's settings",
            description = "Absent fields take their defaults: maxWorkers null (unlimited), paused false, active true, "
                    + "and the broker's lease, attempt and backoff defaults.")
    public Responses.QueueView put(@PathParam("name") String name, Requests.Queue body) {
        String queue = Validate.queueName("name", name);
        Requests.Queue b = Validate.body(body);
        Integer maxWorkers = Validate.optionalRange("maxWorkers", b.maxWorkers(), 0, 1_000_000);
        Integer lease = Validate.optionalRange("leaseSeconds", b.leaseSeconds(),
                config.limits().leaseMinSeconds(), config.limits().leaseMaxSeconds());
        Integer maxAttempts = Validate.optionalRange("maxAttempts", b.maxAttempts(), 1, 1000);
        Long base = Validate.optionalRange("backoffBaseSeconds", b.backoffBaseSeconds(), 0L, DAY);
        Long cap = Validate.optionalRange("backoffCapSeconds", b.backoffCapSeconds(), 0L, 30 * DAY);
        var settings = new QueueSettings(queue, maxWorkers, Boolean.TRUE.equals(b.paused()),
                b.active() == null || b.active(), lease, maxAttempts,
                base == null ? null : base * 1000, cap == null ? null : cap * 1000);
        return Responses.QueueView.of(broker.putQueue(settings));
    }

    @GET
    @Tag(name = "Queues")
    @Operation(summary = "List queues with their job counts and lag",
            description = "Every queue that has jobs or settings. Inactive queues are listed only with ?all=true. "
                    + "lagSeconds is the age of the oldest due job, on the database clock.")
    public Responses.QueueList list(@jakarta.ws.rs.QueryParam("all") @jakarta.ws.rs.DefaultValue("false") boolean all) {
        return new Responses.QueueList(broker.queues(all).stream().map(Responses.QueueView::of).toList());
    }

    @jakarta.ws.rs.POST
    @Path("/{name}/pause")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Queues")
    @Operation(summary = "Pause a queue: nothing in it is claimed until it is resumed")
    public Responses.QueueView pause(@PathParam("name") String name) {
        return Responses.QueueView.of(broker.pause(Validate.queueName("name", name), true));
    }

    @jakarta.ws.rs.POST
    @Path("/{name}/resume")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Queues")
    @Operation(summary = "Resume a paused queue")
    public Responses.QueueView resume(@PathParam("name") String name) {
        return Responses.QueueView.of(broker.pause(Validate.queueName("name", name), false));
    }

    @GET
    @Path("/{name}")
    @Tag(name = "Queues")
    @Operation(summary = "Read a queue's settings and job counts")
    public Responses.QueueView get(@PathParam("name") String name) {
        return Responses.QueueView.of(broker.getQueue(Validate.queueName("name", name)));
    }
}
