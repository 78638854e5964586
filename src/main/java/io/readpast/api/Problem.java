package io.readpast.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** An RFC 9457 problem document. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String instance) {

    public static final String MEDIA_TYPE = "application/problem+json";

    static Response response(int status, String slug, String title, String detail, String instance) {
        String type = slug == null ? "about:blank" : "urn:readpast:problem:" + slug;
        return Response.status(status)
                .type(MediaType.valueOf(MEDIA_TYPE))
                .entity(new Problem(type, title, status, detail, instance))
                .build();
    }
}
