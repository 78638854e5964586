package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Trace context on the default path, the OpenTelemetry SDK off (no READPAST_OTLP_ENDPOINT): the
 * job keeps the producer's traceparent and tracestate exactly as sent, a job sent without one
 * has none, and the worker's claim hands back the same. ({@link TraceContextTest} covers the SDK
 * on, where the job points at the broker's enqueue span in the producer's trace.)
 */
@QuarkusTest
@TestProfile(TraceContextDefaultTest.SdkOff.class)
class TraceContextDefaultTest {

    /** The broker as it runs by default: tracing off. */
    public static class SdkOff implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("readpast.otel.enabled", "false");
        }
    }

    private static final String PRODUCER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @TestHTTPResource("/")
    URI base;

    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void setUp() {
        TestDb.clean();
    }

    private JsonNode post(String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(r.statusCode() < 300, path + " answered " + r.statusCode() + ": " + r.body());
        return io.readpast.testsupport.Http.JSON.readTree(r.body());
    }

    @Test
    void theProducersContextIsKeptExactlyAndNoneIsMadeUp() throws Exception {
        JsonNode sent = post("/jobs", "{\"queue\":\"kept\",\"type\":\"t\"}", "traceparent", PRODUCER,
                "tracestate", "vendor=abc,other=1");
        assertEquals(PRODUCER, sent.get("traceparent").asText(), sent.toString());
        assertEquals("vendor=abc,other=1", sent.get("tracestate").asText());
        JsonNode none = post("/jobs", "{\"queue\":\"kept\",\"type\":\"t\"}");
        assertTrue(none.get("traceparent").isNull(), "no traceparent sent, none stored: " + none);
        assertTrue(none.get("tracestate").isNull(), none.toString());
        JsonNode garbage = post("/jobs", "{\"queue\":\"kept\",\"type\":\"t\"}", "traceparent", "garbage",
                "tracestate", "k=v");
        assertTrue(garbage.get("traceparent").isNull(), "a traceparent that does not parse is dropped: " + garbage);

        JsonNode batch = post("/jobs/batch", "{\"jobs\":[{\"queue\":\"kept\",\"type\":\"a\"},"
                + "{\"queue\":\"kept\",\"type\":\"b\",\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00\"}]}",
                "traceparent", PRODUCER);
        assertEquals(PRODUCER, batch.get("results").get(0).get("job").get("traceparent").asText());
        assertEquals("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00",
                batch.get("results").get(1).get("job").get("traceparent").asText());

        JsonNode claimed = post("/claim", "{\"workerId\":\"w\",\"queues\":[\"kept\"],\"limit\":10}").get("jobs");
        assertEquals(5, claimed.size(), claimed.toString());
        for (JsonNode job : claimed) {
            String id = job.get("id").asText();
            JsonNode expected = id.equals(sent.get("id").asText()) ? sent.get("traceparent")
                    : id.equals(none.get("id").asText()) || id.equals(garbage.get("id").asText()) ? none.get("traceparent")
                    : null;
            if (expected != null) {
                assertEquals(expected, job.get("traceparent"), "the worker gets what the producer sent: " + job);
            }
        }
    }
}
