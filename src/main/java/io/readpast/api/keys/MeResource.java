package io.readpast.api.keys;

import io.readpast.api.http.ApiDocs;
import io.readpast.security.Allowed;
import io.readpast.security.ApiKeys;
import io.readpast.security.Caller;
import io.readpast.security.Role;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Who the presented key is: lets a client (the dashboard) check a key and show only what it may do. */
@Path("/me")
@Produces(MediaType.APPLICATION_JSON)
public class MeResource {

    private final Caller caller;
    private final ApiKeys keys;

    public MeResource(Caller caller, ApiKeys keys) {
        this.caller = caller;
        this.keys = keys;
    }

    @GET
    @Consumes(MediaType.WILDCARD)
    @Allowed({Role.PRODUCER, Role.WORKER})
    @Tag(name = "Keys")
    @Operation(summary = "Who the presented API key is: its name, roles and queue scope",
            description = "Answers for any valid key (401 otherwise), so a client can check a key before using it. "
                    + "Never returns the key or its digest. With authentication off: name null, roles [\"admin\"], "
                    + "authEnabled false.\n\nRole: any (producer, worker or admin).")
    @APIResponse(responseCode = "200", description = "The key's name, roles and queue scope.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Me.class),
                    examples = {
                            @ExampleObject(name = "admin", value = ApiDocs.ME),
                            @ExampleObject(name = "scopedWorker", value = ApiDocs.ME_SCOPED)}))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    public Me me() {
        Set<Role> roles = caller.roles();
        List<String> names = roles == null ? List.of("admin")
                : roles.stream().sorted().map(r -> r.name().toLowerCase(Locale.ROOT)).toList();
        Set<String> scope = caller.queueScope();
        return new Me(caller.name(), names, scope == null ? null : scope.stream().sorted().toList(), keys.enabled());
    }

    @Schema(description = "The presented key.")
    public record Me(
            @Schema(nullable = true, description = "The key's name (recorded as createdBy/modifiedBy); null with "
                    + "authentication off.", examples = "ops")
            String name,
            @Schema(description = "producer, worker and/or admin (admin may do everything).",
                    examples = "[\"admin\"]")
            List<String> roles,
            @Schema(nullable = true, description = "The queues a scoped key may use; null: every queue.",
                    examples = "[\"emails\"]")
            List<String> queues,
            @Schema(description = "False when the broker runs with READPAST_AUTH_ENABLED=false.", examples = "true")
            boolean authEnabled) {
    }
}
