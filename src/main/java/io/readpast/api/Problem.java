package io.readpast.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** An RFC 9457 problem document. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String instance) {

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
