package io.readpast.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/** JSON over java.net.http to one broker; problem+json answers become ReadpastExceptions. */
final class Http {

    /** An answer: its status and decoded body (null when empty). */
    record Answer(int status, Object body) {
        @SuppressWarnings("unchecked")
        Map<String, Object> map() {
            return (Map<String, Object>) body;
        }
    }

    private final String base;
    private final String auth;
    private final HttpClient client;
    private final Duration timeout;

    Http(String url, String apiKey, Duration timeout) {
        this.base = url.replaceAll("/+$", "");
        this.auth = apiKey == null || apiKey.isEmpty() ? null : "Bearer " + apiKey;
        this.timeout = timeout;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    Answer call(String method, String path, Object body) {
        return call(method, path, body, null, timeout);
    }

    Answer call(String method, String path, Object body, Map<String, String> headers, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(timeout == null ? this.timeout : timeout)
                .header("Accept", "application/json")
                .header("User-Agent", "readpast-java");
        if (auth != null) {
            b.header("Authorization", auth);
        }
        if (headers != null) {
            headers.forEach(b::header);
        }
        if (body != null) {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(Json.write(body)));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> r;
        try {
            r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ConnectionException(method + " " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionException(method + " " + path + ": interrupted", e);
        }
        String text = r.body();
        if (r.statusCode() >= 200 && r.statusCode() < 300) {
            return new Answer(r.statusCode(), text == null || text.isEmpty() ? null : Json.parse(text));
        }
        Object problem;
        try {
            problem = text == null || text.isEmpty() ? null : Json.parse(text);
        } catch (IllegalArgumentException e) {
            problem = null;
        }
        String raw = text == null ? "" : text.strip();
        throw ReadpastException.of(r.statusCode(), problem, raw.length() > 500 ? raw.substring(0, 500) : raw,
                retryAfter(r.headers().firstValue("Retry-After").orElse(null)),
                r.headers().firstValue("X-Request-Id").orElse(null));
    }

    /** Retry-After as a duration: delta-seconds or an HTTP date; null when absent or unreadable. */
    static Duration retryAfter(String v) {
        if (v == null || v.isBlank()) {
            return null;
        }
        try {
            return Duration.ofMillis(Math.max(0, (long) (Double.parseDouble(v.strip()) * 1000)));
        } catch (NumberFormatException e) {
            try {
                ZonedDateTime t = ZonedDateTime.parse(v.strip(), DateTimeFormatter.RFC_1123_DATE_TIME);
                Duration d = Duration.between(java.time.Instant.now(), t.toInstant());
                return d.isNegative() ? Duration.ZERO : d;
            } catch (java.time.format.DateTimeParseException e2) {
                return null;
            }
        }
    }
}
