package io.readpast.api.jobs;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.Responses;
import io.readpast.api.http.Validate;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Operations;
import io.readpast.store.DeadFilter;
import io.readpast.store.JobRow;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;

/** Dead letters: jobs that used up their attempts or failed fatally. */
@Path("/dead-letters")
@Produces(MediaType.APPLICATION_JSON)
public class DeadLetterResource {

    private final Operations operations;
    private final ReadpastConfig config;

    public DeadLetterResource(Operations operations, ReadpastConfig config) {
        this.operations = operations;
        this.config = config;
    }

    @GET
    @Tag(name = "Operators")
    @Operation(operationId = "listDeadLetters", summary = "List dead letters, newest first",
            description = "DEAD jobs: attempts used up, failed with retryable false, or lease expired on the last "
                    + "attempt. Keyset pagination: pass the previous page's 'next' as 'after'. "
                    + "Requeue one with POST /jobs/{id}/requeue, delete it with DELETE /jobs/{id}." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "A page of dead letters, newest first.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.Page.class),
                    examples = {
                            @ExampleObject(name = "page", value = ApiDocs.PAGE),
                            @ExampleObject(name = "last", summary = "Past the last page", value = ApiDocs.PAGE_LAST)}))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.Page list(
            @Parameter(description = "Only dead letters of this queue.", example = "emails")
            @QueryParam("queue") String queue,
            @Parameter(description = "Only dead letters of this job type.", example = "send")
            @QueryParam("type") String type,
            @Parameter(description = "Page size: 1 to readpast.limits.page-max (500 by default); default 50.",
                    schema = @Schema(type = SchemaType.INTEGER, minimum = "1", defaultValue = "50"), example = "50")
            @QueryParam("limit") String limit,
            @Parameter(description = "The 'next' value of the previous page; absent for the first page.",
                    example = "42")
            @QueryParam("after") String after) {
        int pageSize = Validate.queryInt("limit", limit, 50, 1, config.limits().pageMax());
        List<JobRow> rows = operations.deadLetters(new DeadFilter(
                queue == null ? null : Validate.queueName("queue", queue),
                type == null ? null : Validate.typeName(type),
                Validate.cursor(after), pageSize));
        return Responses.Page.of(rows, pageSize);
    }
}
