package io.readpast.api;

import io.readpast.config.ReadpastConfig;
import io.readpast.core.Broker;
import io.readpast.store.JobRow;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;

/** Dead letters: jobs that used up their attempts or failed fatally. */
@Path("/dead-letters")
@Produces(MediaType.APPLICATION_JSON)
public class DeadLetterResource {

    private final Broker broker;
    private final ReadpastConfig config;

    public DeadLetterResource(Broker broker, ReadpastConfig config) {
        this.broker = broker;
        this.config = config;
    }

    @GET
    @Tag(name = "Operators")
    @Operation(summary = "List dead letters, newest first",
            description = "Keyset pagination: pass the previous page's 'next' as 'after'. "
                    + "Requeue one with POST /jobs/{id}/requeue, delete it with DELETE /jobs/{id}.")
    public Responses.Page list(@QueryParam("queue") String queue, @QueryParam("type") String type,
                               @QueryParam("limit") String limit, @QueryParam("after") String after) {
        int pageSize = Validate.queryInt("limit", limit, 50, 1, config.limits().pageMax());
        List<JobRow> rows = broker.deadLetters(
                queue == null ? null : Validate.queueName("queue", queue),
                type == null ? null : Validate.typeName(type),
                Validate.cursor(after), pageSize);
        String next = rows.size() < pageSize ? null : Long.toString(rows.get(rows.size() - 1).id());
        return new Responses.Page(rows.stream().map(JobView::of).toList(), next);
    }
}
