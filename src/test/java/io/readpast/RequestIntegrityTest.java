package io.readpast;

import io.readpast.testsupport.TestDb;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a request carries is handed on exactly, or refused whole with a 400 that names the field:
 * numbers keep their value and scale, strings that no database here stores faithfully (a lone
 * UTF-16 surrogate) are refused, and framing a proxy in front could read differently (a member
 * given twice, overlong UTF-8, an unknown Transfer-Encoding) is refused before anything is done.
 * A client that breaks off mid-body is not a failure of the broker.
 */
@QuarkusTest
class RequestIntegrityTest {

    @TestHTTPResource("/")
    URI base;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    private record Raw(int status, String body) {
    }

    private Raw post(String path, byte[] body) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Raw(r.statusCode(), r.body());
    }

    private Raw post(String path, String body) throws Exception {
        return post(path, body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void numbersInPayloadsAndResultsKeepTheirExactValue() throws Exception {
        String payload = "{\"money\":12345678901234567.89,\"tiny\":0.1000000000000000055511151231257827,"
                + "\"huge\":1e400,\"scale\":1.10,\"big\":123456789012345678901234567890,\"neg\":-0.0}";
        Raw created = post("/jobs", "{\"queue\":\"exact\",\"type\":\"t\",\"payload\":" + payload + "}");
        assertEquals(201, created.status(), created.body());
        Raw claimed = post("/claim", "{\"workerId\":\"w\",\"queues\":[\"exact\"]}");
        assertEquals(200, claimed.status(), claimed.body());
        // read as BigDecimal: a parse into double here would hide what the broker did
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
                .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));
        var job = mapper.readTree(claimed.body()).get("jobs").get(0);
        var p = job.get("payload");
        assertEquals(new BigDecimal("12345678901234567.89"), p.get("money").decimalValue());
        assertEquals(new BigDecimal("0.1000000000000000055511151231257827"), p.get("tiny").decimalValue());
        assertEquals(0, new BigDecimal("1e400").compareTo(p.get("huge").decimalValue()), p.toString());
        assertEquals("1.10", p.get("scale").decimalValue().toPlainString(), "the scale too");
        assertEquals(new BigInteger("123456789012345678901234567890"), p.get("big").bigIntegerValue());
        assertFalse(claimed.body().contains("Infinity") || claimed.body().contains("E16"), claimed.body());
        // a result is kept the same way
        Raw done = post("/jobs/" + job.get("id").asText() + "/complete",
                "{\"leaseId\":\"" + job.get("leaseId").asText() + "\",\"result\":{\"total\":98765432109876543.21}}");
        assertEquals(200, done.status(), done.body());
        assertEquals(new BigDecimal("98765432109876543.21"),
                mapper.readTree(done.body()).get("result").get("total").decimalValue());
    }

    @Test
    void stringsThatCannotBeStoredAsGivenAreRefusedNamingTheField() throws Exception {
        String before = TestDb.snapshot();
        Raw key = post("/jobs", "{\"queue\":\"s\",\"type\":\"t\",\"idempotencyKey\":\"order-\\ud800-42\"}");
        assertEquals(400, key.status(), key.body());
        assertTrue(key.body().contains("idempotencyKey") && key.body().contains("surrogate"), key.body());
        Raw inPayload = post("/jobs", "{\"queue\":\"s\",\"type\":\"t\",\"payload\":{\"a\":[\"x\\udc00y\"]}}");
        assertEquals(400, inPayload.status(), inPayload.body());
        assertTrue(inPayload.body().contains("payload.a[0]"), inPayload.body());
        Raw inName = post("/jobs", "{\"queue\":\"s\",\"type\":\"t\",\"payload\":{\"\\ud800\":1}}");
        assertEquals(400, inName.status(), inName.body());
        assertEquals(before, TestDb.snapshot(), "nothing was written");
        // a pair is a character like any other, and comes back as sent
        Raw pair = post("/jobs", "{\"queue\":\"s\",\"type\":\"t\",\"idempotencyKey\":\"order-\\ud83d\\ude00-42\","
                + "\"payload\":{\"emoji\":\"\\ud83d\\ude00\"}}");
        assertEquals(201, pair.status(), pair.body());
        var created = new com.fasterxml.jackson.databind.ObjectMapper().readTree(pair.body());
        assertEquals("order-\uD83D\uDE00-42", created.get("idempotencyKey").asText(), pair.body());
        assertEquals("\uD83D\uDE00", created.get("payload").get("emoji").asText(), pair.body());
    }

    @Test
    void aMemberGivenTwiceOverlongUtf8AndUnknownTransferCodingsAreRefused() throws Exception {
        String before = TestDb.snapshot();
        Raw twice = post("/jobs", "{\"queue\":\"a\",\"type\":\"t\",\"queue\":\"b\"}");
        assertEquals(400, twice.status(), twice.body());
        assertTrue(twice.body().contains("Duplicate field 'queue'"), twice.body());
        // C0 AF: an overlong "/"
        byte[] overlong = "{\"queue\":\"a\",\"type\":\"t\",\"payload\":\"\u0000\u0000\"}".getBytes(StandardCharsets.UTF_8);
        int at = new String(overlong, StandardCharsets.UTF_8).indexOf('\u0000');
        overlong[at] = (byte) 0xC0;
        overlong[at + 1] = (byte) 0xAF;
        Raw bad = post("/jobs", overlong);
        assertEquals(400, bad.status(), bad.body());
        assertTrue(bad.body().contains("not valid UTF-8"), bad.body());
        String coded = exchange("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: gzip, chunked\r\n\r\n18\r\n{\"queue\":\"a\",\"type\":\"t\"}\r\n0\r\n\r\n", false);
        assertTrue(coded.startsWith("HTTP/1.1 501"), coded);
        assertTrue(coded.contains("application/problem+json") && coded.contains("gzip, chunked"), coded);
        assertEquals(before, TestDb.snapshot(), "nothing was written");
    }

    @Test
    void aClientThatBreaksOffMidBodyIsNotAServerFailure() throws Exception {
        long before = serverErrors();
        List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        org.jboss.logmanager.ExtHandler capture = new org.jboss.logmanager.ExtHandler() {
            @Override
            protected void doPublish(org.jboss.logmanager.ExtLogRecord record) {
                if (record.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()) {
                    errors.add(record.getFormattedMessage());
                }
            }
        };
        org.jboss.logmanager.Logger root = org.jboss.logmanager.Logger.getLogger("");
        root.addHandler(capture);
        String badChunk;
        try {
            exchange("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
                    + "{\"queue\":", true);
            badChunk = exchange("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\nZZ\r\n{\"queue\":\"a\",\"type\":\"t\"}\r\n0\r\n\r\n", false);
            exchange("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\n{\"que", true);
        } finally {
            root.removeHandler(capture);
        }
        // Vert.x drops a connection whose chunk size does not parse; if an answer comes, it is a 400
        assertTrue(badChunk.isEmpty() || badChunk.startsWith("HTTP/1.1 400"), badChunk);
        errors.addAll(TestDb.artifactLog().stream().filter(l -> l.contains(" ERROR ") && l.contains("chunk")).toList());
        assertEquals(List.of(), errors, "no ERROR line for framing a client broke");
        // the broker still serves, and none of these counted as a 5xx
        Raw ok = post("/jobs", "{\"queue\":\"a\",\"type\":\"t\"}");
        assertEquals(201, ok.status(), ok.body());
        assertEquals(before, serverErrors(), "no 5xx counted for requests the client broke off");
    }

    /** 5xx answers counted by the HTTP server metrics so far. */
    private long serverErrors() throws Exception {
        HttpResponse<String> m = client.send(HttpRequest.newBuilder(base.resolve("/q/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return m.body().lines().filter(l -> l.startsWith("http_server_requests_seconds_count") && l.contains("status=\"5"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /** Writes a raw request; with {@code hangUp}, closes the connection at once; returns what came back. */
    private String exchange(String request, boolean hangUp) throws Exception {
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            if (hangUp) {
                return "";
            }
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[4096];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    got.write(buf, 0, n);
                    if (got.toString(StandardCharsets.UTF_8).contains("}")) {
                        break;
                    }
                }
            } catch (java.net.SocketTimeoutException | java.net.SocketException e) {
                // the server closed or stopped answering: what arrived is the answer
            }
            return got.toString(StandardCharsets.UTF_8);
        }
    }

    /** A batch acknowledgement naming one job twice, with a wrong lease and with the held one. */
    @Test
    void eachItemOfABatchAckIsAnsweredOnItsOwn() throws Exception {
        assertEquals(201, post("/jobs", "{\"queue\":\"twice\",\"type\":\"t\"}").status());
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        var job = mapper.readTree(post("/claim", "{\"workerId\":\"w\",\"queues\":[\"twice\"]}").body()).get("jobs").get(0);
        String id = job.get("id").asText();
        String held = job.get("leaseId").asText();
        String wrong = "00000000-0000-4000-8000-000000000000";
        for (List<String> order : List.of(List.of(wrong, held))) {
            Raw r = post("/jobs/complete", mapper.writeValueAsString(Map.of("items", List.of(
                    Map.of("id", id, "leaseId", order.get(0)), Map.of("id", id, "leaseId", order.get(1))))));
            assertEquals(200, r.status(), r.body());
            var results = mapper.readTree(r.body()).get("results");
            assertEquals(409, results.get(0).get("status").asInt(), "the wrong lease: " + r.body());
            assertEquals(200, results.get(1).get("status").asInt(), "the held lease: " + r.body());
        }
    }
}
