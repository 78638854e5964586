package io.readpast.api.http;

import io.readpast.http.Problem;
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
 *
 * <p>A body over {@code quarkus.http.limits.max-body-size} is a 413 problem document. The rest
 * of the body is read and dropped before the connection closes: closing on unread bytes makes
 * the client's TCP stack see a reset instead of the answer, while it is still sending.
 */
@ApplicationScoped
public class HttpFraming {

    /** Most bytes read and dropped after a 413 before the connection is simply closed. */
    static final long DRAIN_MAX = 64L * 1024 * 1024;

    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "quarkus.http.limits.max-body-size",
            defaultValue = "10240K")
    io.quarkus.runtime.configuration.MemorySize maxBody;

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(HttpFraming.class);

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
            String length = rc.request().getHeader(HttpHeaders.CONTENT_LENGTH);
            if (length != null && tooLarge(length)) {
                refuseTooLarge(rc);
                return;
            }
            if (untypedBody(rc.request(), length)) {
                // a body with no Content-Type is not taken as JSON by guessing: say what to send
                refuseDrained(rc, 415, json(new Problem("urn:readpast:problem:unsupported-media-type",
                        "Unsupported Media Type", 415,
                        "The request has a body but no Content-Type: send it as application/json.", rc.normalizedPath())));
                return;
            }
            rc.next();
        });
        // Every API body is read whole here, on the event loop, before a resource runs: chunked
        // bodies (no Content-Length) after Quarkus' own limit handler (order -2), so that going
        // over the limit is a failure this class answers; and bodies with a length, so that a
        // resource on a virtual or worker thread takes the bytes as they are instead of reading a
        // blocking stream fed chunk by chunk under a lock shared with the event loop (profiled:
        // 12-17% of the broker's CPU at half load went to that hand-off)
        io.vertx.ext.web.handler.BodyHandler bodies = io.vertx.ext.web.handler.BodyHandler.create(false)
                .setBodyLimit(maxBody.asLongValue());
        router.route().order(-1).handler(rc -> {
            String length = rc.request().getHeader(HttpHeaders.CONTENT_LENGTH);
            boolean chunked = length == null && rc.request().headers().contains(HttpHeaders.TRANSFER_ENCODING);
            String path = rc.request().path();
            boolean api = path != null && !path.startsWith("/q/") && !path.startsWith("/ui/");
            // (HTTP/1 only: a request upgraded to h2c arrives with its body already taken in)
            boolean http1 = rc.request().version() != io.vertx.core.http.HttpVersion.HTTP_2;
            if (chunked || (api && http1 && length != null && !length.equals("0"))) {
                bodies.handle(rc);
            } else {
                rc.next();
            }
        }).failureHandler(rc -> {
            if (rc.statusCode() == 413) {
                refuseTooLarge(rc);
                return;
            }
            // only the body is read here: a failure is the client's framing (a malformed chunk
            // size) or the client going away, never the server's; a debug line, and a 400 if
            // anyone is still there to read it
            LOG.debugf("The body of %s could not be read (broken framing, or the client went away): %s",
                    rc.normalizedPath(), rc.failure());
            io.vertx.core.http.HttpServerResponse resp = rc.response();
            if (!resp.ended() && !resp.closed() && !resp.headWritten()) {
                resp.setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
                if (rc.request().version() != io.vertx.core.http.HttpVersion.HTTP_2) {
                    resp.putHeader(HttpHeaders.CONNECTION, "close"); // HTTP/2 has no Connection header
                }
                resp.end(json(new Problem("urn:readpast:problem:incomplete-request", "Bad Request", 400,
                                "The request body could not be read: its chunked framing is broken, or it ended early.",
                                rc.normalizedPath())));
            }
        });
    }

    /** A POST, PUT or PATCH of the API with a body (a length over 0, or chunked) and no Content-Type. */
    static boolean untypedBody(io.vertx.core.http.HttpServerRequest req, String contentLength) {
        io.vertx.core.http.HttpMethod m = req.method();
        if (!(m == io.vertx.core.http.HttpMethod.POST || m == io.vertx.core.http.HttpMethod.PUT
                || m == io.vertx.core.http.HttpMethod.PATCH) || req.headers().contains(HttpHeaders.CONTENT_TYPE)) {
            return false;
        }
        String path = req.path();
        if (path == null || path.startsWith("/q/") || path.startsWith("/ui/")) {
            return false;
        }
        if (contentLength != null) {
            try {
                return Long.parseLong(contentLength.strip()) > 0;
            } catch (NumberFormatException e) {
                return false; // Vert.x refuses a malformed Content-Length itself
            }
        }
        return req.headers().contains(HttpHeaders.TRANSFER_ENCODING);
    }

    private boolean tooLarge(String contentLength) {
        try {
            return Long.parseLong(contentLength.strip()) > maxBody.asLongValue();
        } catch (NumberFormatException e) {
            return false; // Vert.x refuses a malformed Content-Length itself
        }
    }

    /** 413 with a problem body; the request's remaining bytes are drained, then the connection closes. */
    private void refuseTooLarge(io.vertx.ext.web.RoutingContext rc) {
        refuseDrained(rc, 413, json(new Problem("urn:readpast:problem:body-too-large", "Content Too Large", 413,
                "The request body is larger than this broker accepts (quarkus.http.limits.max-body-size, "
                        + maxBody.asLongValue() + " bytes); send smaller batches.", rc.normalizedPath())));
    }

    /** Answers {@code status} with a problem body; the request's remaining bytes are drained, then the connection closes. */
    private static void refuseDrained(io.vertx.ext.web.RoutingContext rc, int status, String body) {
        io.vertx.core.http.HttpServerRequest req = rc.request();
        io.vertx.core.http.HttpServerResponse resp = rc.response();
        if (resp.ended()) {
            return;
        }
        resp.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
        if (req.version() != io.vertx.core.http.HttpVersion.HTTP_2) {
            // HTTP/2 has no Connection header (a client refuses the answer): the stream is reset instead
            resp.putHeader(HttpHeaders.CONNECTION, "close");
        }
        if (req.isEnded()) {
            resp.end(body);
            return;
        }
        java.util.concurrent.atomic.AtomicLong drained = new java.util.concurrent.atomic.AtomicLong();
        req.handler(buf -> {
            if (drained.addAndGet(buf.length()) > DRAIN_MAX) {
                req.connection().close();
            }
        });
        req.endHandler(v -> {
            if (!resp.ended()) {
                resp.end(body);
            }
        });
        req.exceptionHandler(e -> req.connection().close());
        req.resume();
        // a client waiting on 'Expect: 100-continue' sends no body: answer it now
        if ("100-continue".equalsIgnoreCase(req.getHeader(HttpHeaders.EXPECT))) {
            resp.end(body);
        }
    }
}
