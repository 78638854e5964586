package io.readpast.api.keys;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.api.http.Validate;
import io.readpast.core.JobRules;
import io.readpast.http.Problem;
import io.readpast.core.BrokerException;
import io.readpast.security.ApiKeys;
import io.readpast.security.Caller;
import io.readpast.security.Role;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
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
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** API keys made and deleted at run time, beside the configured and the generated ones (admin only). */
@Path("/keys")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class KeyResource {

    private static final String KEY_NAME_PARAM = "Key name: 1-100 letters, digits and . _ @ - (starting with a "
            + "letter or digit). Anything else is 404, like an unknown name.";

    private final ApiKeys keys;
    private final Caller caller;

    public KeyResource(ApiKeys keys, Caller caller) {
        this.keys = keys;
        this.caller = caller;
    }

    @POST
    @Tag(name = "Keys")
    @Operation(operationId = "createKey", summary = "Make a new API key (shown once)",
            description = "Mints a random key with the given roles and optional queue scope, stores only its "
                    + "SHA-256 digest, and returns the key in this answer only. It works at once on this instance "
                    + "and within a second on the others. Keys made here coexist with the configured keys and the "
                    + "admin key generated at first start." + ApiDocs.ROLE_ADMIN)
    @RequestBody(required = true, description = "Name, roles and optional queue scope.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.CreateKey.class),
                    examples = {
                            @ExampleObject(name = "scopedWorker", summary = "A worker key for two queues",
                                    value = ApiDocs.KEY_BODY),
                            @ExampleObject(name = "producer", summary = "A producer key for every queue",
                                    value = "{\"name\": \"billing-app\", \"roles\": [\"producer\"]}")}))
    @APIResponse(responseCode = "201", description = "Created: the key (shown this once) and how it is listed.",
            headers = @Header(name = "Location", description = "/keys/{name} of the new key",
                    schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.KeyCreated.class),
                    examples = @ExampleObject(name = "created", value = ApiDocs.KEY_CREATED)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "409", description = "A key of this name exists already (configured or stored).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "exists", value = ApiDocs.PROBLEM_KEY_EXISTS)))
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Response create(Requests.CreateKey body) {
        Requests.CreateKey b = Validate.body(body);
        String name = b.name();
        if (!JobRules.isKeyName(name)) {
            throw BrokerException.invalid("'name' must be 1-100 letters, digits and . _ @ - "
                    + "(starting with a letter or digit).");
        }
        if (b.roles() == null || b.roles().isEmpty() || b.roles().size() > 3) {
            throw BrokerException.invalid("'roles' must list 1-3 of producer, worker, admin.");
        }
        Set<Role> roles = EnumSet.noneOf(Role.class);
        for (int i = 0; i < b.roles().size(); i++) {
            String r = b.roles().get(i);
            try {
                roles.add(Role.parse(r == null ? "" : r));
            } catch (IllegalArgumentException e) {
                throw BrokerException.invalid("'roles[" + i + "]' must be producer, worker or admin.");
            }
        }
        List<String> queues = Validate.queueList("queues", b.queues());
        if (queues != null && roles.contains(Role.ADMIN)) {
            throw BrokerException.invalid("Admin keys cannot be scoped to queues: omit 'queues'.");
        }
        ApiKeys.Created created = keys.create(name, roles, queues == null ? null : new LinkedHashSet<>(queues),
                        caller.name())
                .orElseThrow(() -> new BrokerException(BrokerException.Kind.STATE_CONFLICT,
                        "A key named '" + name + "' exists already."));
        return Response.created(URI.create("/keys/" + name)).entity(Responses.KeyCreated.of(created)).build();
    }

    @GET
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Keys")
    @Operation(operationId = "listKeys", summary = "List every API key (names, roles, scopes; never the keys)",
            description = "Configured keys (READPAST_API_KEYS, READPAST_API_KEYS_FILE), the admin key generated at "
                    + "first start, and keys made with POST /keys, with where each came from. Neither keys nor "
                    + "their digests are shown." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The keys.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.KeyList.class),
                    examples = @ExampleObject(name = "keys", value = ApiDocs.KEY_LIST)))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Responses.KeyList list() {
        return new Responses.KeyList(keys.list().stream().map(Responses.KeyView::of).toList());
    }

    @DELETE
    @Path("/{name}")
    @Consumes(MediaType.WILDCARD)
    // no body on success: a client that accepts only problem documents (the error answers) is fine
    @Produces({MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    @Tag(name = "Keys")
    @Operation(operationId = "deleteKey", summary = "Delete a stored API key (generated or made with POST /keys)",
            description = "The key stops working at once on this instance and within readpast.auth.refresh (5 s) "
                    + "on the others. Configured keys are removed from the configuration instead (409), and the "
                    + "last admin key cannot be deleted (409)." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "204", description = "Deleted.")
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No stored key of this name.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_KEY_NOT_FOUND)))
    @APIResponse(responseCode = "409", description = "The key is configured, or it is the last admin key.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "configured", value = ApiDocs.PROBLEM_KEY_CONFIGURED)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Response delete(@Parameter(description = KEY_NAME_PARAM, example = "mailer") @PathParam("name") String name) {
        ApiKeys.Deletion outcome = JobRules.isKeyName(name)
                ? keys.delete(name, caller.name()) : ApiKeys.Deletion.NOT_FOUND;
        return switch (outcome) {
            case DELETED -> Response.noContent().build();
            case NOT_FOUND -> throw new BrokerException(BrokerException.Kind.NOT_FOUND,
                    "No stored API key named '" + Validate.printable(name) + "'.");
            case CONFIGURED -> throw new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Key '" + name
                    + "' is configured (READPAST_API_KEYS or READPAST_API_KEYS_FILE): remove it there.");
            case LAST_ADMIN -> throw new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Key '" + name
                    + "' is the last admin key: make another admin key first.");
        };
    }
}
