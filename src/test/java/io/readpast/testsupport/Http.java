package io.readpast.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small thread-safe JSON client for tests that run many requests at once. */
public final class Http {

    public static final ObjectMapper JSON = new ObjectMapper();

    public record Reply(int status, JsonNode body, String contentType, String retryAfter) {
        public Reply(int status, JsonNode body, String contentType) {
            this(status, body, contentType, null);
        }
    }

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    public Http(URI base) {
        this.base = base;
    }

    public Reply post(String path, Object body) {
        return send("POST", path, body, Duration.ofSeconds(30));
    }

    public Reply send(String method, String path, Object body, Duration timeout) {
        try {
            String text = body == null ? "" : body instanceof String s ? s : JSON.writeValueAsString(body);
            HttpRequest req = HttpRequest.newBuilder(base.resolve(path))
                    .timeout(timeout)
                    .header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(text))
                    .build();
            HttpResponse<String> resp = client.send(req, HttpResponse.BodyHandlers.ofString());
            java.util.List<String> findings = OpenApiValidation.get().check(new OpenApiValidation.Exchange(method,
                    req.uri(), "application/json", text, resp.statusCode(),
                    resp.headers().firstValue("Content-Type").orElse(null),
                    name -> resp.headers().firstValue(name).orElse(null), resp.body().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            if (!findings.isEmpty()) {
                throw new AssertionError("The answer does not keep to openapi/openapi.json:\n  "
                        + String.join("\n  ", findings) + "\nanswer: " + resp.body());
            }
            JsonNode node = resp.body().isEmpty() ? null : JSON.readTree(resp.body());
            return new Reply(resp.statusCode(), node, resp.headers().firstValue("Content-Type").orElse(""),
                    resp.headers().firstValue("Retry-After").orElse(null));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
