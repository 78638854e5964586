package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A thread-safe JSON client for broker processes. A connection failure (broker gone, refused,
 * reset, timed out) is an {@link IOException}, so that callers can tell it from an HTTP answer
 * and try another instance.
 */
final class Api {

    static final ObjectMapper JSON = new ObjectMapper();

    /** One HTTP answer; {@code body} is null when the body is empty or not JSON ({@code raw} has it). */
    record Reply(int status, JsonNode body, String contentType, String retryAfter, String raw) {

        boolean problemJson() {
            return contentType.startsWith("application/problem+json");
        }

        @Override
        public String toString() {
            return status + " " + contentType + (retryAfter == null ? "" : " Retry-After=" + retryAfter) + " " + raw;
        }
    }

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(3))
            .build();
    /** Sent as 'Authorization: Bearer' when set (brokers started with authentication on). */
    private String apiKey;

    /** A client that sends this API key. */
    Api withKey(String key) {
        Api a = new Api();
        a.apiKey = key;
        return a;
    }

    Reply get(URI base, String path, Duration timeout) throws IOException {
        return send(base, "GET", path, null, timeout);
    }

    Reply post(URI base, String path, Object body) throws IOException {
        return send(base, "POST", path, body, Duration.ofSeconds(30));
    }

    Reply put(URI base, String path, Object body) throws IOException {
        return send(base, "PUT", path, body, Duration.ofSeconds(30));
    }

    /** {@link #post} for set-up and checks, where a connection failure is a test failure. */
    Reply postOrFail(URI base, String path, Object body) {
        try {
            return post(base, path, body);
        } catch (IOException e) {
            throw new UncheckedIOException("POST " + base.resolve(path), e);
        }
    }

    Reply getOrFail(URI base, String path) {
        try {
            return get(base, path, Duration.ofSeconds(30));
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + base.resolve(path), e);
        }
    }

    Reply send(URI base, String method, String path, Object body, Duration timeout) throws IOException {
        String text = body == null ? null : body instanceof String s ? s : JSON.writeValueAsString(body);
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout)
                .header("Accept", "application/json");
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        if (text == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(text));
        }
        HttpResponse<String> resp;
        try {
            resp = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted: " + method + " " + path);
        }
        String raw = resp.body() == null ? "" : resp.body();
        JsonNode node = null;
        if (!raw.isEmpty()) {
            try {
                node = JSON.readTree(raw);
            } catch (IOException notJson) {
                node = null;
            }
        }
        return new Reply(resp.statusCode(), node, resp.headers().firstValue("Content-Type").orElse(""),
                resp.headers().firstValue("Retry-After").orElse(null), raw);
    }
}
