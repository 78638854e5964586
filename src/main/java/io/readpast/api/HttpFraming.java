package io.readpast.api;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.util.Locale;

/**
 * Refuses request framing that a proxy in front may read differently from this server, before
 * any body is read: a Transfer-Encoding other than plain {@code chunked} (such as
 * {@code gzip, chunked}, which would otherwise be read as chunked with the gzip ignored) is a
 * 501, as RFC 9112 asks of a server that does not understand a coding.
 */
@ApplicationScoped
public class HttpFraming {

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    static String json(Problem p) {
        try {
            return JSON.writeValueAsString(p);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    void routes(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE + 10).handler(rc -> {
            java.util.List<String> codings = rc.request().headers().getAll(HttpHeaders.TRANSFER_ENCODING);
            for (String header : codings) {
                for (String coding : header.split(",")) {
                    String c = coding.strip().toLowerCase(Locale.ROOT);
                    if (!c.equals("chunked")) {
                        String body = json(new Problem("urn:readpast:problem:unsupported-transfer-coding",
                                "Not Implemented", 501, "Transfer-Encoding '" + Validate.printable(header, 80)
                                + "' is not supported: send the body with Content-Length, or with Transfer-Encoding: "
                                + "chunked alone.", rc.normalizedPath()));
                        rc.response().setStatusCode(501)
                                .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                                .putHeader(HttpHeaders.CONNECTION, "close")
                                .end(body);
                        return;
                    }
                }
            }
            rc.next();
        });
    }
}
