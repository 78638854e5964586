package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.Http;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Worker calls for whole batches: POST /jobs/heartbeat, /jobs/fail and /jobs/release answer
 * per item, as the single calls would; a release may be delayed; a claim may ask for some job
 * types only; a bad request changes nothing.
 */
@QuarkusTest
class BatchLeaseCallsTest {

    private static final String NO_LEASE = "00000000-0000-4000-8000-000000000000";

    @TestHTTPResource("/")
    URI base;

    Http http;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    /** Enqueues n jobs in queue q and claims them all: each claimed job as {id, leaseId}. */
    private List<Map<String, Object>> claimed(String q, int n) {
        for (int i = 0; i < n; i++) {
            assertEquals(201, http.post("/jobs", Map.of("queue", q, "type", "t", "payload", Map.of("i", i))).status());
        }
        Http.Reply r = http.post("/claim", Map.of("workerId", "w", "queues", List.of(q), "limit", n,
                "leaseSeconds", 30));
        assertEquals(200, r.status(), String.valueOf(r.body()));
        List<Map<String, Object>> out = new ArrayList<>();
        for (JsonNode j : r.body().get("jobs")) {
            out.add(new HashMap<>(Map.of("id", j.get("id").asText(), "leaseId", j.get("leaseId").asText())));
        }
        assertEquals(n, out.size());
        return out;
    }

    private JsonNode job(Object id) {
        Http.Reply r = http.send("GET", "/jobs/" + id, null, Duration.ofSeconds(10));
        assertEquals(200, r.status(), String.valueOf(r.body()));
        return r.body();
    }

    private static Map<String, Object> with(Map<String, Object> item, Object... kv) {
        Map<String, Object> m = new HashMap<>(item);
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static List<Integer> statuses(JsonNode body) {
        List<Integer> out = new ArrayList<>();
        body.get("results").forEach(r -> out.add(r.get("status").asInt()));
        return out;
    }

    @Test
    void aBatchHeartbeatExtendsEveryHeldLeaseAndTellsLostOnesApart() {
        List<Map<String, Object>> jobs = claimed("hb", 3);
        Map<String, Object> a = jobs.get(0);
        Map<String, Object> b = jobs.get(1);
        Map<String, Object> c = jobs.get(2);
        Instant before = TestDb.dbNow();
        Http.Reply r = http.post("/jobs/heartbeat", Map.of("items", List.of(
                with(a, "leaseSeconds", 600, "progress", Map.of("percent", 40, "message", "half")),
                b,
                with(c, "leaseId", NO_LEASE),                            // not this job's lease
                Map.of("id", "999999999", "leaseId", NO_LEASE),          // no such job
                with(a, "leaseId", "not-a-uuid"),                        // invalid
                "not an object",
                with(b, "leaseSeconds", 0))));                           // out of range
        assertEquals(200, r.status(), String.valueOf(r.body()));
        assertEquals(List.of(200, 200, 409, 404, 400, 400, 400), statuses(r.body()), r.body().toString());
        assertEquals(2, r.body().get("succeeded").asInt());
        assertEquals(5, r.body().get("failed").asInt());
        JsonNode first = r.body().get("results").get(0);
        assertEquals(0, first.get("index").asInt());
        assertEquals(a.get("id"), first.get("id").asText());
        assertEquals("PROCESSING", first.get("jobStatus").asText());
        assertFalse(first.get("cancelRequested").asBoolean());
        // 600 s from the database's now, not the claim's 30
        Instant expires = Instant.parse(first.get("leaseExpiresAt").asText());
        assertTrue(expires.isAfter(before.plusSeconds(590)) && expires.isBefore(before.plusSeconds(700)),
                "lease runs 600 s from now: " + expires + " (db now " + before + ")");
        Instant bExpires = Instant.parse(r.body().get("results").get(1).get("leaseExpiresAt").asText());
        assertTrue(bExpires.isBefore(before.plusSeconds(100)), "b kept its 30 s lease length: " + bExpires);
        assertEquals("urn:readpast:problem:lease-conflict", r.body().get("results").get(2).get("error").get("type").asText());
        // what the answers say is what the jobs are
        JsonNode ja = job(a.get("id"));
        assertEquals("PROCESSING", ja.get("status").asText());
        assertEquals(40, ja.get("progress").get("percent").asInt());
        assertEquals("PROCESSING", job(b.get("id")).get("status").asText());
        assertEquals("LEASED", job(c.get("id")).get("status").asText(), "a wrong lease changes nothing");
        // a second heartbeat keeps the progress when it gives none, and still holds
        Http.Reply again = http.post("/jobs/heartbeat", Map.of("items", List.of(a, a)));
        assertEquals(List.of(200, 200), statuses(again.body()), again.body().toString());
        assertEquals(40, job(a.get("id")).get("progress").get("percent").asInt());
    }

    @Test
    void aBatchHeartbeatReportsACancelRequest() {
        Map<String, Object> a = claimed("hbcancel", 1).get(0);
        assertEquals(200, http.post("/jobs/" + a.get("id") + "/cancel", null).status());
        Http.Reply r = http.post("/jobs/heartbeat", Map.of("items", List.of(a)));
        assertEquals(200, r.status(), String.valueOf(r.body()));
        assertTrue(r.body().get("results").get(0).get("cancelRequested").asBoolean(), r.body().toString());
    }

    @Test
    void aBatchFailRetriesKillsAndRefusesPerItem() {
        List<Map<String, Object>> jobs = claimed("fails", 3);
        Instant before = TestDb.dbNow();
        Http.Reply r = http.post("/jobs/fail", Map.of("items", List.of(
                with(jobs.get(0), "error", "timeout", "retryAfterSeconds", 120),
                with(jobs.get(1), "error", "bad input", "retryable", false),
                with(jobs.get(2), "leaseId", NO_LEASE),
                Map.of("id", "999999999", "leaseId", NO_LEASE),
                with(jobs.get(2), "error", "x".repeat(10_001)),
                with(jobs.get(2), "retryAfterSeconds", -1))));
        assertEquals(200, r.status(), String.valueOf(r.body()));
        assertEquals(List.of(200, 200, 409, 404, 400, 400), statuses(r.body()), r.body().toString());
        assertEquals("PENDING", r.body().get("results").get(0).get("jobStatus").asText());
        assertEquals("DEAD", r.body().get("results").get(1).get("jobStatus").asText());
        JsonNode retried = job(jobs.get(0).get("id"));
        assertEquals("PENDING", retried.get("status").asText());
        assertEquals("timeout", retried.get("lastError").asText());
        assertTrue(Instant.parse(retried.get("runAt").asText()).isAfter(before.plusSeconds(110)),
                "due 120 s from now: " + retried.get("runAt"));
        assertEquals("DEAD", job(jobs.get(1).get("id")).get("status").asText());
        assertEquals("LEASED", job(jobs.get(2).get("id")).get("status").asText(), "refused items change nothing");
        // sent again: the dead one is answered as done under its lease, the retried one lost its lease
        Http.Reply again = http.post("/jobs/fail", Map.of("items", List.of(jobs.get(0),
                with(jobs.get(1), "retryable", false))));
        assertEquals(List.of(409, 200), statuses(again.body()), again.body().toString());
    }

    @Test
    void aBatchReleaseGivesJobsBackAtOnceOrAfterTheirDelay() {
        List<Map<String, Object>> jobs = claimed("rel", 3);
        Instant before = TestDb.dbNow();
        Http.Reply r = http.post("/jobs/release", Map.of("items", List.of(
                jobs.get(0),
                with(jobs.get(1), "delaySeconds", 3600),
                with(jobs.get(2), "leaseId", NO_LEASE),
                with(jobs.get(2), "delaySeconds", -5),
                with(jobs.get(2), "delaySeconds", 316_224_001L))));
        assertEquals(200, r.status(), String.valueOf(r.body()));
        assertEquals(List.of(200, 200, 409, 400, 400), statuses(r.body()), r.body().toString());
        assertEquals("PENDING", r.body().get("results").get(0).get("jobStatus").asText());
        assertEquals("PENDING", r.body().get("results").get(1).get("jobStatus").asText());
        JsonNode now = job(jobs.get(0).get("id"));
        assertEquals(0, now.get("attempt").asInt(), "the claim's attempt is given back");
        JsonNode later = job(jobs.get(1).get("id"));
        Instant runAt = Instant.parse(later.get("runAt").asText());
        assertTrue(runAt.isAfter(before.plusSeconds(3590)) && runAt.isBefore(before.plusSeconds(3700)),
                "due an hour from the database's now: " + runAt);
        // only the undelayed one is claimable; the third is still leased
        Http.Reply next = http.post("/claim", Map.of("workerId", "w2", "queues", List.of("rel"), "limit", 10));
        assertEquals(1, next.body().get("jobs").size(), next.body().toString());
        assertEquals(jobs.get(0).get("id"), next.body().get("jobs").get(0).get("id").asText());
    }

    @Test
    void aSingleReleaseTakesADelayToo() {
        Map<String, Object> a = claimed("rel1", 1).get(0);
        Instant before = TestDb.dbNow();
        Http.Reply r = http.post("/jobs/" + a.get("id") + "/release", Map.of("leaseId", a.get("leaseId"),
                "delaySeconds", 600));
        assertEquals(200, r.status(), String.valueOf(r.body()));
        assertEquals("PENDING", r.body().get("status").asText());
        assertTrue(Instant.parse(r.body().get("runAt").asText()).isAfter(before.plusSeconds(590)), r.body().toString());
        Http.Reply bad = http.post("/jobs/" + a.get("id") + "/release", Map.of("leaseId", a.get("leaseId"),
                "delaySeconds", "soon"));
        assertEquals(400, bad.status(), String.valueOf(bad.body()));
    }

    private List<String> claimTypes(String q, Object types, int limit, List<Map<String, Object>> ack) {
        Map<String, Object> body = new HashMap<>(Map.of("workerId", "typed", "queues", List.of(q), "limit", limit));
        if (types != null) {
            body.put("types", types);
        }
        if (ack != null) {
            body.put("ack", ack);
        }
        Http.Reply r = http.post("/claim", body);
        assertEquals(200, r.status(), String.valueOf(r.body()));
        List<String> out = new ArrayList<>();
        r.body().get("jobs").forEach(j -> out.add(j.get("type").asText()));
        return out;
    }

    @Test
    void aClaimCanAskForSomeJobTypesOnly() {
        for (String type : List.of("resize", "email", "Email", "resize", "pdf")) {
            assertEquals(201, http.post("/jobs", Map.of("queue", "typed", "type", type)).status());
        }
        // exact match: "Email" is not "email"
        assertEquals(List.of("email"), claimTypes("typed", List.of("email", "email"), 10, null));
        assertEquals(List.of("resize", "resize"), claimTypes("typed", List.of("resize", "gif"), 10, null));
        assertEquals(List.of(), claimTypes("typed", List.of("gif"), 10, null));
        // ack-and-claim takes the filter too
        Http.Reply one = http.post("/claim", Map.of("workerId", "typed", "queues", List.of("typed"), "types",
                List.of("pdf")));
        JsonNode pdf = one.body().get("jobs").get(0);
        assertEquals(List.of("Email"), claimTypes("typed", List.of("Email"), 10,
                List.of(Map.of("id", pdf.get("id").asText(), "leaseId", pdf.get("leaseId").asText()))));
        assertEquals("SUCCEEDED", job(pdf.get("id").asText()).get("status").asText());
        // a long poll for one type is answered by a job of that type, not by one of another that
        // arrived first (which stays pending)
        java.util.concurrent.CompletableFuture<Http.Reply> waiting = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> http.post("/claim", Map.of("workerId", "typed", "queues", List.of("typed2"), "types",
                        List.of("wanted"), "waitSeconds", 20)));
        String other = http.post("/jobs", Map.of("queue", "typed2", "type", "other")).body().get("id").asText();
        assertEquals(201, http.post("/jobs", Map.of("queue", "typed2", "type", "wanted")).status());
        Http.Reply got = waiting.orTimeout(25, java.util.concurrent.TimeUnit.SECONDS).join();
        assertEquals(1, got.body().get("jobs").size(), got.body().toString());
        assertEquals("wanted", got.body().get("jobs").get(0).get("type").asText());
        assertEquals("PENDING", job(other).get("status").asText());
    }

    @Test
    void aClaimWithBadTypesIsRefusedAndClaimsNothing() {
        assertEquals(201, http.post("/jobs", Map.of("queue", "badtypes", "type", "t")).status());
        String before = TestDb.snapshot();
        List<Object> many = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            many.add("t" + i);
        }
        for (Object types : java.util.Arrays.asList(List.of(), many, List.of("has space"), List.of(""),
                List.of("x".repeat(201)), "t", List.of(1), java.util.Collections.singletonList(null))) {
            Map<String, Object> body = new HashMap<>(Map.of("workerId", "w", "queues", List.of("badtypes")));
            body.put("types", types);
            Http.Reply r = http.post("/claim", body);
            assertEquals(400, r.status(), types + ": " + r.body());
            assertTrue(r.contentType().startsWith("application/problem+json"), r.contentType());
        }
        assertEquals(before, TestDb.snapshot(), "nothing claimed");
    }

    @Test
    void aBadBatchIsRefusedWholeAndChangesNothing() {
        List<Map<String, Object>> jobs = claimed("badbatch", 2);
        String before = TestDb.snapshot();
        List<Object> tooMany = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            tooMany.add(jobs.get(0));
        }
        for (String call : List.of("heartbeat", "fail", "release")) {
            for (Object body : List.of(Map.of(), Map.of("items", List.of()), Map.of("items", tooMany),
                    Map.of("items", "x"), "[1,2]", "{\"items\": [", Map.of("items", List.of(jobs.get(0)), "extra", 1))) {
                Http.Reply r = http.post("/jobs/" + call, body);
                assertEquals(400, r.status(), call + " " + body.toString().substring(0, Math.min(60,
                        body.toString().length())) + ": " + r.body());
                assertTrue(r.contentType().startsWith("application/problem+json"), r.contentType());
            }
        }
        assertEquals(before, TestDb.snapshot(), "nothing changed");
    }
}
