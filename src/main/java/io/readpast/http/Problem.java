package io.readpast.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** An RFC 9457 problem document. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(description = "An RFC 9457 problem document (media type application/problem+json).")
public record Problem(
        @Schema(description = "What kind of problem: urn:readpast:problem:invalid-request, malformed-json, "
                + "unauthorized, forbidden, not-found, lease-conflict, state-conflict, unsupported-media-type "
                + "(415: send the body as application/json), not-acceptable (406: accept application/json), "
                + "body-too-large (413), incomplete-request (the body could not be read), "
                + "unsupported-transfer-coding (501), database-unavailable or database-refused (503, with "
                + "Retry-After; the detail names the database's code) (each as "
                + "`urn:readpast:problem:<slug>`), or about:blank for plain HTTP errors (an unknown path, "
                + "405, 500).",
                format = "uri", examples = "urn:readpast:problem:lease-conflict")
        String type,
        @Schema(description = "Short summary of the problem type.", examples = "Lease not held")
        String title,
        @Schema(description = "The HTTP status code.", examples = "409")
        int status,
        @Schema(description = "What went wrong with this request, naming the field or value at fault.",
                examples = "Job 42 is not leased with this leaseId: the lease expired and the job was re-leased, "
                        + "was released, or the job already finished.")
        String detail,
        @Schema(description = "The request path. Absent in the per-item errors of batch answers.",
                examples = "/jobs/42/complete")
        String instance) {

    public static final String MEDIA_TYPE = "application/problem+json";

    /** {@code type} is a full type URI, a short slug (made a urn:readpast:problem: URI), or null (about:blank). */
    public static Response response(int status, String type, String title, String detail, String instance) {
        if (type == null) {
            type = "about:blank";
        } else if (!type.contains(":")) {
            type = "urn:readpast:problem:" + type;
        }
        return Response.status(status)
                .type(MediaType.valueOf(MEDIA_TYPE))
                .entity(new Problem(type, title, status, detail, instance))
                .build();
    }
}
