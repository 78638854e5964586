package io.readpast.api.http;

import io.readpast.http.Problem;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.Components;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.servers.Server;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The OpenAPI document's header: API key security (Swagger UI's Authorize button), tags, and
 * the error responses that many operations share (referenced by name, see {@link ApiDocs}).
 */
@OpenAPIDefinition(
        info = @Info(title = "Readpast", version = "0.1.0",
                description = "HTTP job broker on SQL Server and PostgreSQL. Producers enqueue jobs; workers in any "
                        + "language claim batches with a lease, heartbeat, and complete, fail or release them. "
                        + "Errors are RFC 9457 application/problem+json.\n\n"
                        + "Every call needs an API key (`Authorization: Bearer <key>`) with the role the operation "
                        + "names: producer, worker or admin (admin may do everything). A key may be scoped to some "
                        + "queues. With authentication off (READPAST_AUTH_ENABLED=false) no key is needed and "
                        + "401/403 for roles do not occur."),
        // Explicit, so that the document stored at build (openapi/) and the one served at run time agree:
        // without servers, Quarkus adds build-host entries (http://localhost:8080...) to the stored one only.
        servers = @Server(url = "/", description = "The broker serving this document"),
        security = @SecurityRequirement(name = "apiKey"),
        tags = {
                @Tag(name = "Producers", description = "Enqueue and read jobs (role producer)"),
                @Tag(name = "Workers", description = "Claim and settle jobs (role worker)"),
                @Tag(name = "Operators", description = "Cancel, requeue, delete, browse, dead letters (role admin)"),
                @Tag(name = "Queues", description = "Queue settings, counts and throughput (role admin)"),
                @Tag(name = "Keys", description = "API keys: who the presented key is (any role); keys made and "
                        + "deleted at run time (role admin)"),
                @Tag(name = "Schedules", description = "Recurring schedules that enqueue jobs (role admin)"),
                @Tag(name = "Webhooks", description = "Completion webhook deliveries (role admin)"),
                @Tag(name = "Batches", description = "Batches of jobs with a callback that fires once (role producer; "
                        + "cancel and list: admin)")
        },
        components = @Components(schemas = {
                @Schema(name = ApiDocs.ANY_VALUE,
                        description = "Any JSON value: object, array, string, number, boolean or null."),
                @Schema(name = ApiDocs.PAYLOAD_FILTER, type = SchemaType.OBJECT, minProperties = 1, maxProperties = 20,
                        description = "Jobs whose payload is an object with each of these members, equal: 1-20 "
                                + "members, each a string, number, boolean or null (top-level members only; a nested "
                                + "object or array is refused with 400).")},
                responses = {
                @APIResponse(name = ApiDocs.BAD_REQUEST, responseCode = "400",
                        description = "Invalid request: the body is not JSON of the expected shape (malformed JSON, "
                                + "an unknown field, a wrong type), or a field or parameter is missing or out of "
                                + "range. 'detail' names the field.",
                        content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                                examples = {
                                        @ExampleObject(name = "invalid", summary = "A field is missing or out of range",
                                                value = ApiDocs.PROBLEM_INVALID),
                                        @ExampleObject(name = "malformed", summary = "Not JSON of the expected shape",
                                                value = ApiDocs.PROBLEM_MALFORMED)})),
                @APIResponse(name = ApiDocs.UNAUTHORIZED, responseCode = "401",
                        description = "No API key, or one the broker does not accept.",
                        headers = @Header(name = "WWW-Authenticate", description = "Bearer realm=\"readpast\"",
                                schema = @Schema(type = SchemaType.STRING)),
                        content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                                examples = @ExampleObject(name = "unauthorized", value = ApiDocs.PROBLEM_UNAUTHORIZED))),
                @APIResponse(name = ApiDocs.FORBIDDEN, responseCode = "403",
                        description = "The API key does not have the role this operation needs.",
                        content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                                examples = @ExampleObject(name = "role", value = ApiDocs.PROBLEM_FORBIDDEN_ROLE))),
                @APIResponse(name = ApiDocs.JOB_NOT_FOUND, responseCode = "404",
                        description = "No job with this id (job ids are positive integers; a deleted job is gone).",
                        content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                                examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_JOB_NOT_FOUND))),
                @APIResponse(name = ApiDocs.LEASE_CONFLICT, responseCode = "409",
                        description = "The caller does not hold the lease: the leaseId is wrong or stale (the lease "
                                + "expired and the job was re-leased, it was released, or the job finished under another "
                                + "lease). Nothing changed. (Repeating a call that already succeeded under the same lease, "
                                + "such as a complete whose answer was lost, is answered 200 again.)",
                        content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                                examples = @ExampleObject(name = "leaseNotHeld", value = ApiDocs.PROBLEM_LEASE_CONFLICT))),
                @APIResponse(name = ApiDocs.UNSUPPORTED_MEDIA_TYPE, responseCode = "415",
                        description = "The body was not sent as application/json.",
                        content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                                examples = @ExampleObject(name = "unsupported", value = ApiDocs.PROBLEM_UNSUPPORTED))),
                @APIResponse(name = ApiDocs.NOT_ACCEPTABLE, responseCode = "406",
                        description = "The Accept header allows no type this operation answers with (application/json; "
                                + "errors are application/problem+json).",
                        content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                                examples = @ExampleObject(name = "notAcceptable", value = ApiDocs.PROBLEM_NOT_ACCEPTABLE))),
                @APIResponse(name = ApiDocs.TOO_LARGE, responseCode = "413",
                        description = "The request body is over quarkus.http.limits.max-body-size (10 MiB by default). "
                                + "The broker reads the rest of the body, then closes the connection.",
                        headers = @Header(name = "Connection", description = "close",
                                schema = @Schema(type = SchemaType.STRING)),
                        content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                                examples = @ExampleObject(name = "tooLarge", value = ApiDocs.PROBLEM_TOO_LARGE))),
                @APIResponse(name = ApiDocs.UNAVAILABLE, responseCode = "503",
                        description = "The database is unreachable right now, or a transient database error "
                                + "occurred; retry after the Retry-After delay.",
                        headers = @Header(name = "Retry-After", description = "Seconds to wait before retrying.",
                                schema = @Schema(type = SchemaType.INTEGER, examples = "2")),
                        content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                                examples = @ExampleObject(name = "unavailable", value = ApiDocs.PROBLEM_UNAVAILABLE)))
        }))
@SecurityScheme(securitySchemeName = "apiKey", type = SecuritySchemeType.HTTP, scheme = "bearer",
        description = "An API key, sent as `Authorization: Bearer <key>`. Paste only the key (rp_...) here: the "
                + "'Bearer ' prefix is added for you. See README, Security.")
public class OpenApiDefinition extends Application {
}
