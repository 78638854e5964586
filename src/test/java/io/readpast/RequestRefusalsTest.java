package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.Http;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a new user tripped on, each refused with a 4xx whose detail names the field and the limit
 * in the request's own terms, and nothing changed: valid JSON out of the broker's range (a
 * priority over 2^31, a 20-digit number, a payload 3,000 arrays deep), malformed JSON (never a
 * parser's setting name, a class name or SQL), a body with no Content-Type (415), and query
 * parameters an endpoint does not take (400 naming them, never silently ignored).
 */
@QuarkusTest
class RequestRefusalsTest {

    /** What a detail must never show: the parser's settings, Java class or package names, SQL. */
    private static final Pattern INTERNALS = Pattern.compile(
            "(?i)(feature|jackson|fasterxml|java\\.|javax\\.|com\\.|io\\.|org\\.|exception|`|constraints|"
                    + "select |insert |update |delete |sqlstate|readpast_job|jdbc)");

    @TestHTTPResource("/")
    URI base;

    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    private HttpResponse<String> send(String method, String path, String contentType, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode refused(int status, HttpResponse<String> r) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"), r.body());
        JsonNode p = Http.JSON.readTree(r.body());
        String detail = p.path("detail").asText();
        assertFalse(INTERNALS.matcher(detail).find(), "the detail names no internals: " + detail);
        return p;
    }

    @Test
    void numbersOutOfRangeNameTheFieldAndTheRange() throws Exception {
        for (String priority : List.of("2147483648", "-2147483649", "99999999999999999999")) {
            JsonNode p = refused(400, send("POST", "/jobs", "application/json",
                    "{\"queue\":\"r\",\"type\":\"t\",\"priority\":" + priority + "}"));
            String detail = p.get("detail").asText();
            assertTrue(detail.contains("'priority'") && detail.contains("-2147483648") && detail.contains("2147483647")
                    && detail.contains(priority), detail);
        }
        // a batch answers the bad item in its own result
        HttpResponse<String> batch = send("POST", "/jobs/batch", "application/json",
                "{\"jobs\":[{\"queue\":\"r\",\"type\":\"t\",\"maxAttempts\":4294967296}]}");
        assertEquals(200, batch.statusCode(), batch.body());
        JsonNode item = Http.JSON.readTree(batch.body()).get("results").get(0);
        assertEquals(400, item.get("status").asInt(), batch.body());
        String itemDetail = item.get("error").get("detail").asText();
        assertTrue(itemDetail.contains("'maxAttempts'") && itemDetail.contains("4294967296")
                && itemDetail.contains("2147483647"), itemDetail);
        assertFalse(INTERNALS.matcher(itemDetail).find(), itemDetail);
        JsonNode exponent = refused(400, send("POST", "/jobs", "application/json",
                "{\"queue\":\"r\",\"type\":\"t\",\"priority\":1e400}"));
        assertTrue(exponent.get("detail").asText().contains("'priority'")
                && exponent.get("detail").asText().contains("expected an integer")
                && !exponent.get("detail").asText().contains("Infinity"), exponent.toString());
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"), "nothing was enqueued");
    }

    @Test
    void aPayloadNestedTooDeepNamesTheFieldAndTheLimit() throws Exception {
        String deep = "[".repeat(3000) + "]".repeat(3000);
        JsonNode p = refused(400, send("POST", "/jobs", "application/json",
                "{\"queue\":\"r\",\"type\":\"t\",\"payload\":" + deep + "}"));
        String detail = p.get("detail").asText();
        assertTrue(detail.contains("'payload'") && detail.contains("1000"), detail);
        JsonNode item = refused(400, send("POST", "/jobs/batch", "application/json",
                "{\"jobs\":[{\"queue\":\"r\",\"type\":\"t\",\"payload\":" + deep + "}]}"));
        // the item: a payload is read as a tree, whose own nesting the reader does not name
        assertTrue(item.get("detail").asText().contains("'jobs[0]") && item.get("detail").asText().contains("1000"),
                item.toString());
        // as deep as the limit allows is fine, and comes back as sent
        String ok = "[".repeat(998) + "]".repeat(998);
        HttpResponse<String> r = send("POST", "/jobs", "application/json", "{\"queue\":\"r\",\"type\":\"t\",\"payload\":" + ok + "}");
        assertEquals(201, r.statusCode(), r.body());
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job"));
    }

    @Test
    void malformedJsonIsDescribedWithoutTheParsersInternals() throws Exception {
        for (String body : List.of("{\"queue\":\"r\",}", "{'queue':1}", "{\"queue\":\"r\",\"type\":\"t\",\"priority\":NaN}",
                "{\"queue\":\"r\",\"type\":\"t\",\"priority\":01}", "/* c */{\"queue\":\"r\"}", "{\"queue\":\"r\"} x",
                "{\"queue\":\"r\",\"type\":\"t\",\"priority\":Infinity}", "\u0000", "{\"queue\":\"r\"")) {
            JsonNode p = refused(400, send("POST", "/jobs", "application/json", body));
            assertTrue(p.get("detail").asText().length() > 10, p.toString());
        }
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"));
    }

    @Test
    void aBodyWithoutContentTypeIs415AndChangesNothing() throws Exception {
        JsonNode p = refused(415, send("POST", "/jobs", null, "{\"queue\":\"r\",\"type\":\"t\"}"));
        assertEquals("urn:readpast:problem:unsupported-media-type", p.get("type").asText());
        refused(415, send("PUT", "/queues/r", null, "{}"));
        refused(415, send("POST", "/jobs", "text/plain", "{\"queue\":\"r\",\"type\":\"t\"}"));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_queue"));
        // a call that takes no body still works without a Content-Type
        assertEquals(200, send("GET", "/queues", null, null).statusCode());
    }

    /** Sent on the wire with no Content-Type and a chunked body (no Content-Length): 415 too. */
    @Test
    void aChunkedBodyWithoutContentTypeIs415() throws Exception {
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            s.setSoTimeout(10_000);
            String body = "{\"queue\":\"r\",\"type\":\"t\"}";
            String req = "POST /jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n";
            s.getOutputStream().write(req.getBytes(StandardCharsets.US_ASCII));
            String head = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 415", head);
        }
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"));
    }

    @Test
    void unknownQueryParametersAreRefusedByName() throws Exception {
        JsonNode p = refused(400, send("GET", "/jobs?payload.customer=acme", null, null));
        String detail = p.get("detail").asText();
        assertTrue(detail.contains("'payload.customer'") && detail.contains("queue") && detail.contains("status"), detail);
        refused(400, send("GET", "/queues?al=true", null, null));
        refused(400, send("POST", "/jobs?queue=r", "application/json", "{\"queue\":\"r\",\"type\":\"t\"}"));
        refused(400, send("GET", "/jobs/1?verbose=1", null, null));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"), "nothing was enqueued");
        // the ones it takes still work
        assertEquals(200, send("GET", "/jobs?queue=r&status=PENDING&limit=5", null, null).statusCode());
        assertEquals(200, send("GET", "/queues?all=true", null, null).statusCode());
    }

    /** A field the spec types strictly is answered with its name, whatever the endpoint. */
    @Test
    void wrongTypesNameTheirField() throws Exception {
        Map<String, String> cases = Map.of(
                "/claim", "{\"workerId\":\"w\",\"queues\":[\"r\"],\"limit\":\"ten\"}",
                "/jobs/batch", "{\"jobs\":[{\"queue\":\"r\",\"type\":\"t\",\"tags\":\"a\"}]}");
        for (var c : cases.entrySet()) {
            HttpResponse<String> r = send("POST", c.getKey(), "application/json", c.getValue());
            if (r.statusCode() == 200) {
                // a batch answers a bad item in its own result
                JsonNode item = Http.JSON.readTree(r.body()).get("results").get(0);
                assertEquals(400, item.get("status").asInt(), r.body());
                assertTrue(item.get("error").get("detail").asText().contains("tags"), r.body());
                assertFalse(INTERNALS.matcher(item.get("error").get("detail").asText()).find(), r.body());
            } else {
                JsonNode p = refused(400, r);
                assertTrue(p.get("detail").asText().contains("limit"), p.toString());
            }
        }
    }
}
