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

    /**
     * {statements, requests} of one kind of merging (enqueues, claims, acks) from a broker's
     * readpast_merged_* metrics; {0, 0} before the first one.
     */
    long[] merged(URI base, String kind) throws IOException {
        // the Prometheus endpoint answers 406 to the API's Accept: application/json
        HttpResponse<String> resp;
        try {
            resp = client.send(HttpRequest.newBuilder(base.resolve("q/metrics")).timeout(Duration.ofSeconds(10))
                    .header("Accept", "text/plain").GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted: GET q/metrics");
        }
        if (resp.statusCode() != 200) {
            throw new IOException("GET q/metrics answered " + resp.statusCode());
        }
        String text = resp.body();
        long[] out = new long[2];
        for (int i = 0; i < 2; i++) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("readpast_merged_"
                    + (i == 0 ? "statements" : "requests") + "_total\\{kind=\"" + kind + "\"[^}]*} ([0-9.E]+)")
                    .matcher(text);
            out[i] = m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
        }
        return out;
    }
}
