package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.DisabledOnIntegrationTest;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * W3C trace context from producer to worker: POST /jobs takes traceparent and tracestate
 * (headers; a batch item's fields), the job keeps them, claims hand them to the worker, and the
 * broker's spans (in process: an in-memory exporter) form one trace from the enqueue to the
 * completion under the producer's trace id. A traceparent that does not parse is ignored.
 */
@QuarkusTest
class TraceContextTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PRODUCER = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

    @TestHTTPResource("/")
    URI base;

    /** In process only: null against the packaged artifact (the span test is disabled there). */
    InMemorySpanExporter spans = TestDb.bean(InMemorySpanExporter.class);

    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void setUp() {
        TestDb.clean();
        if (spans != null) {
            spans.reset();
        }
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

    private JsonNode claimOne(String queue) throws Exception {
        JsonNode claim = post("/claim", "{\"workerId\":\"w\",\"queues\":[\"" + queue + "\"],\"limit\":1}");
        assertEquals(1, claim.get("jobs").size(), claim.toString());
        return claim.get("jobs").get(0);
    }

    @Test
    void theProducersTraceGoesWithTheJobToItsWorker() throws Exception {
        JsonNode job = post("/jobs", "{\"queue\":\"traced\",\"type\":\"send\"}", "traceparent", PRODUCER,
                "tracestate", "vendor=abc,other=1");
        String stored = job.get("traceparent").asText();
        assertEquals(TRACE_ID, stored.substring(3, 35), "the producer's trace: " + stored);
        assertEquals("vendor=abc,other=1", job.get("tracestate").asText());
        JsonNode claimed = claimOne("traced");
        assertEquals(stored, claimed.get("traceparent").asText(), "the worker gets the job's trace context");
        assertEquals("vendor=abc,other=1", claimed.get("tracestate").asText());
        // a batch item's own field wins over the request's header; items without one take the header
        String other = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        JsonNode batch = post("/jobs/batch", "{\"jobs\":[{\"queue\":\"traced2\",\"type\":\"a\",\"traceparent\":\""
                + other + "\"},{\"queue\":\"traced2\",\"type\":\"b\"}]}", "traceparent", PRODUCER);
        assertEquals("0af7651916cd43dd8448eb211c80319c",
                batch.get("results").get(0).get("job").get("traceparent").asText().substring(3, 35));
        assertEquals(TRACE_ID, batch.get("results").get(1).get("job").get("traceparent").asText().substring(3, 35));
    }

    @Test
    void aTraceparentThatDoesNotParseIsIgnored() throws Exception {
        for (String garbage : List.of("garbage", "00-" + TRACE_ID + "-00f067aa0ba902b7", "ff-" + TRACE_ID
                + "-00f067aa0ba902b7-01", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-" + TRACE_ID.toUpperCase() + "-00f067aa0ba902b7-01", PRODUCER + "-extra", "x".repeat(5000))) {
            JsonNode job = post("/jobs", "{\"queue\":\"garbage\",\"type\":\"t\"}", "traceparent", garbage,
                    "tracestate", "k=v");
            JsonNode tp = job.get("traceparent");
            // nothing of the garbage is kept: no trace, or (spans on) the broker's own new one
            assertTrue(tp.isNull() || !tp.asText().contains(TRACE_ID), garbage + " -> " + tp);
            if (tp.isNull()) {
                assertTrue(job.get("tracestate").isNull(), "no tracestate without a traceparent");
            }
            JsonNode item = post("/jobs/batch", "{\"jobs\":[{\"queue\":\"garbage\",\"type\":\"t\",\"traceparent\":"
                    + io.readpast.testsupport.Http.JSON.writeValueAsString(garbage) + "}]}");
            assertEquals(201, item.get("results").get(0).get("status").asInt(), item.toString());
        }
        // a tracestate that is too long, or not printable ASCII, is dropped; the traceparent stays
        for (String state : List.of("k=" + "v".repeat(600), "k=\u00e9")) {
            JsonNode job = post("/jobs", "{\"queue\":\"garbage\",\"type\":\"t\"}", "traceparent", PRODUCER,
                    "tracestate", state);
            assertEquals(TRACE_ID, job.get("traceparent").asText().substring(3, 35));
            assertTrue(job.get("tracestate").isNull(), job.toString());
        }
    }

    @Test
    @DisabledOnIntegrationTest("reads the spans of the in-process exporter")
    void theBrokersSpansFormOneTraceFromEnqueueToCompletion() throws Exception {
        JsonNode job = post("/jobs", "{\"queue\":\"spans\",\"type\":\"send\"}", "traceparent", PRODUCER);
        String id = job.get("id").asText();
        JsonNode claimed = claimOne("spans");
        String lease = claimed.get("leaseId").asText();
        post("/jobs/" + id + "/heartbeat", "{\"leaseId\":\"" + lease + "\"}");
        post("/jobs/" + id + "/complete", "{\"leaseId\":\"" + lease + "\"}");

        SpanData enqueue = await().atMost(Duration.ofSeconds(20)).until(() -> span("readpast enqueue", id),
                Optional::isPresent).get();
        assertEquals(TRACE_ID, enqueue.getTraceId(), "the enqueue joins the producer's trace");
        assertEquals(id, enqueue.getAttributes().get(AttributeKey.stringKey("readpast.job.id")));
        assertEquals("spans", enqueue.getAttributes().get(AttributeKey.stringKey("readpast.queue")));
        assertEquals("send", enqueue.getAttributes().get(AttributeKey.stringKey("readpast.type")));
        assertEquals(job.get("traceparent").asText().substring(36, 52), enqueue.getSpanId(),
                "the job stores the enqueue span's context");
        // the producer's span is the parent of the request's span, which is the enqueue's parent
        SpanData request = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getSpanId().equals(enqueue.getParentSpanId())).findFirst().orElseThrow();
        assertEquals("00f067aa0ba902b7", request.getParentSpanId());

        for (String call : List.of("readpast heartbeat", "readpast complete")) {
            SpanData s = await().atMost(Duration.ofSeconds(20)).until(() -> span(call, id), Optional::isPresent).get();
            assertEquals(TRACE_ID, s.getTraceId(), call + " is in the producer's trace");
            assertEquals(enqueue.getSpanId(), s.getParentSpanId(), call + " is a child of the enqueue");
            assertEquals(id, s.getAttributes().get(AttributeKey.stringKey("readpast.job.id")));
            assertEquals(1L, s.getAttributes().get(AttributeKey.longKey("readpast.attempt")));
        }
        SpanData claim = await().atMost(Duration.ofSeconds(20)).until(() -> spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("readpast claim") && s.getLinks().stream().anyMatch(l -> id.equals(
                        l.getAttributes().get(AttributeKey.stringKey("readpast.job.id"))))).findFirst(),
                Optional::isPresent).get();
        List<LinkData> links = new ArrayList<>(claim.getLinks());
        assertEquals(1, links.size(), links.toString());
        assertEquals(TRACE_ID, links.get(0).getSpanContext().getTraceId());
        assertEquals(enqueue.getSpanId(), links.get(0).getSpanContext().getSpanId());
        assertEquals(id, links.get(0).getAttributes().get(AttributeKey.stringKey("readpast.job.id")));
        assertNotEquals(TRACE_ID, claim.getTraceId(), "the claim is the worker's request, linked to the job's trace");
    }

    @Test
    @DisabledOnIntegrationTest("reads the spans of the in-process exporter")
    void batchFailAndReleaseGiveEachJobItsSpanInItsOwnTrace() throws Exception {
        JsonNode a = post("/jobs", "{\"queue\":\"spans-batch\",\"type\":\"a\"}", "traceparent", PRODUCER);
        JsonNode b = post("/jobs", "{\"queue\":\"spans-batch\",\"type\":\"b\"}");
        JsonNode claimed = post("/claim", "{\"workerId\":\"w\",\"queues\":[\"spans-batch\"],\"limit\":2}");
        String leaseA = null;
        String leaseB = null;
        for (JsonNode j : claimed.get("jobs")) {
            if (j.get("id").asText().equals(a.get("id").asText())) {
                leaseA = j.get("leaseId").asText();
            } else {
                leaseB = j.get("leaseId").asText();
            }
        }
        post("/jobs/fail", "{\"items\":[{\"id\":\"" + a.get("id").asText() + "\",\"leaseId\":\"" + leaseA + "\"}]}");
        post("/jobs/release", "{\"items\":[{\"id\":\"" + b.get("id").asText() + "\",\"leaseId\":\"" + leaseB + "\"}]}");
        SpanData fail = await().atMost(Duration.ofSeconds(20)).until(() -> span("readpast fail", a.get("id").asText()),
                Optional::isPresent).get();
        assertEquals(TRACE_ID, fail.getTraceId(), "the batch fail joins the producer's trace");
        assertEquals(a.get("traceparent").asText().substring(36, 52), fail.getParentSpanId());
        SpanData release = await().atMost(Duration.ofSeconds(20)).until(() -> span("readpast release", b.get("id").asText()),
                Optional::isPresent).get();
        assertEquals(b.get("traceparent").asText().substring(3, 35), release.getTraceId(), "the job's own trace");
    }

    @Test
    @DisabledOnIntegrationTest("reads the spans of the in-process exporter")
    void aJobWithoutAProducerTraceStartsItsOwn() throws Exception {
        JsonNode job = post("/jobs", "{\"queue\":\"own\",\"type\":\"t\"}");
        String stored = job.get("traceparent").asText();
        String id = job.get("id").asText();
        SpanData enqueue = await().atMost(Duration.ofSeconds(20)).until(() -> span("readpast enqueue", id),
                Optional::isPresent).get();
        assertEquals(enqueue.getTraceId(), stored.substring(3, 35));
        assertNotEquals(TRACE_ID, enqueue.getTraceId());
    }

    /** The span of this name about job {@code id} (other tests' spans may still be arriving). */
    private Optional<SpanData> span(String name, String id) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)
                && id.equals(s.getAttributes().get(AttributeKey.stringKey("readpast.job.id")))).findFirst();
    }
}
