package io.readpast.api;

import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** The OpenAPI document's header: API key security (Swagger UI's Authorize button) and tags. */
@OpenAPIDefinition(
        info = @Info(title = "Readpast", version = "0.1.0",
                description = "HTTP job broker on SQL Server and PostgreSQL. Producers enqueue jobs; workers in any "
                        + "language claim batches with a lease, heartbeat, and complete, fail or release them. "
                        + "Errors are RFC 9457 application/problem+json."),
        security = @SecurityRequirement(name = "apiKey"),
        tags = {
                @Tag(name = "Producers", description = "Enqueue and read jobs (role producer)"),
                @Tag(name = "Workers", description = "Claim and settle jobs (role worker)"),
                @Tag(name = "Operators", description = "Cancel, requeue, delete, browse, dead letters (role admin)"),
                @Tag(name = "Queues", description = "Queue settings and counts (role admin)")
        })
@SecurityScheme(securitySchemeName = "apiKey", type = SecuritySchemeType.HTTP, scheme = "bearer",
        description = "An API key: 'Authorization: Bearer <key>'. See README, Security.")
public class OpenApiDefinition extends Application {
}
