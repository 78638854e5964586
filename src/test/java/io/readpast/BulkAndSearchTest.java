package io.readpast;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.Jobs;
import io.readpast.testsupport.TestDb;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Search (GET /jobs with the whole filter) and bulk actions (POST /jobs/bulk with the same
 * filter): every filter field across the hot, archive and dead tables; requeue, cancel and
 * delete with their counts, dry runs, limits and the cursor to go on; bad input is a 400 that
 * changes nothing; a bulk cancel racing claimers leaves every job cancelled or cancel-requested
 * and its counts add up.
 */
@QuarkusTest
class BulkAndSearchTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    private static List<String> search(String query) {
        return given().urlEncodingEnabled(false).get("/jobs?limit=500&" + query).then().statusCode(200).extract().jsonPath().getList("jobs.id");
    }

    private static JsonPath bulk(Map<String, Object> body) {
        return given().contentType(ContentType.JSON).body(body).post("/jobs/bulk").then().statusCode(200)
                .extract().jsonPath();
    }

    /** Enqueues, claims and fails a job for good with {@code error}: DEAD. */
    private static String dead(String queue, String error, Map<String, Object> extra) {
        Map<String, Object> body = new HashMap<>(extra);
        body.put("queue", queue);
        body.putIfAbsent("type", "t");
        body.put("maxAttempts", 1);
        String id = Jobs.enqueue(body);
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", 1));
        assertEquals(id, c.getString("jobs[0].id"));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", error))
                .post("/jobs/" + id + "/fail").then().statusCode(200).body("status", equalTo("DEAD"));
        return id;
    }

    private static String succeeded(String queue) {
        String id = Jobs.enqueue(Map.of("queue", queue, "type", "t"));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", 1));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .post("/jobs/" + id + "/complete").then().statusCode(200);
        return id;
    }

    @Test
    void everyFilterFieldSearchesTheHotArchivedAndDeadJobs() {
        String acme = Jobs.enqueue(Map.of("queue", "s1", "type", "t", "payload", Map.of("customer", "acme", "n", 1),
                "fairnessKey", "tenant-a"));
        String other = Jobs.enqueue(Map.of("queue", "s1", "type", "t", "payload", Map.of("customer", "globex", "n", 1),
                "groupKey", "g-1"));
        String scalar = Jobs.enqueue(Map.of("queue", "s1", "type", "t", "payload", "acme"));
        String timeout = dead("s2", "SMTP Timeout after 30 s", Map.of("payload", Map.of("customer", "acme")));
        String refused = dead("s2", "connection refused", Map.of());
        String done = succeeded("s3");
        String batch = given().contentType(ContentType.JSON).body(Map.of("jobs", List.of(Map.of("queue", "s4", "type", "b"))))
                .post("/batches").then().statusCode(201).extract().path("id");
        List<String> inBatch = search("queue=s4");
        assertEquals(1, inBatch.size());

        assertEquals(List.of(timeout, acme), search("payload=" + enc("{\"customer\":\"acme\"}")),
                "payload containment, hot and dead; the scalar payload is no object");
        assertEquals(List.of(acme), search("payload=" + enc("{\"customer\":\"acme\",\"n\":1}")));
        assertEquals(List.of(), search("payload=" + enc("{\"customer\":\"ACME\"}")), "values compare exactly");
        assertEquals(List.of(acme), search("fairnessKey=tenant-a"));
        assertEquals(List.of(other), search("groupKey=g-1"));
        assertEquals(inBatch, search("batch=" + batch));
        assertEquals(List.of(timeout), search("error=timeout"), "a substring of the last error, any case");
        assertEquals(List.of(refused, timeout), search("error=o&status=DEAD"));
        Instant now = TestDb.dbNow();
        assertEquals(List.of(done), search("finishedAfter=" + now.minusSeconds(600) + "&status=SUCCEEDED"));
        assertEquals(List.of(refused, timeout), search("finishedBefore=" + now.plusSeconds(600) + "&queue=s2"));
        assertEquals(List.of(), search("finishedBefore=" + now.minusSeconds(600)));
        assertEquals(6 + inBatch.size(), search("createdAfter=" + now.minusSeconds(600)).size(), "every job");
        assertEquals(List.of(), search("createdBefore=" + now.minusSeconds(600)));
        assertEquals(List.of(scalar, other, acme), search("queue=s1&createdBefore=" + now.plusSeconds(600)));
    }

    @Test
    void badFiltersAre400sNamingTheField() {
        Jobs.enqueue(Map.of("queue", "s5", "type", "t"));
        Map<String, String> bad = Map.of(
                "payload=" + enc("[1]"), "payload",
                "payload=" + enc("{\"a\":{\"b\":1}}"), "payload.a",
                "payload=" + enc("{}"), "payload",
                "payload=notjson", "payload",
                "batch=x", "batch",
                "createdAfter=yesterday", "createdAfter",
                "finishedBefore=2026-13-01", "finishedBefore",
                "error=" + "e".repeat(201), "error",
                "payload.customer=acme", "payload.customer");
        for (var e : bad.entrySet()) {
            var r = given().urlEncodingEnabled(false).get("/jobs?" + e.getKey()).then().extract();
            assertEquals(400, r.statusCode(), e.getKey() + ": " + r.asString());
            assertEquals("application/problem+json", r.contentType(), e.getKey());
            assertTrue(r.jsonPath().getString("detail").contains(e.getValue()), e.getKey() + ": " + r.asString());
        }
    }

    @Test
    void aBulkRequeueByErrorTextCountsDryRunsAndGoesOnFromItsCursor() {
        List<String> timeouts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            timeouts.add(dead("b1", "read timeout #" + i, Map.of("payload", Map.of("i", i))));
        }
        String other = dead("b1", "bad address", Map.of());
        String pending = Jobs.enqueue(Map.of("queue", "b1", "type", "t", "delaySeconds", 3600));
        String before = TestDb.snapshot();

        JsonPath dry = bulk(Map.of("action", "requeue", "filter", Map.of("queue", "b1", "error", "timeout"),
                "dryRun", true));
        assertEquals(List.of(5, 5, 0, 0), List.of(dry.getInt("matched"), dry.getInt("eligible"), dry.getInt("changed"),
                dry.getInt("skipped")));
        assertNull(dry.get("next"));
        assertEquals(before, TestDb.snapshot(), "a dry run changes nothing");

        // the whole queue, 2 at a time: the pending job matches and is not eligible
        JsonPath first = bulk(Map.of("action", "requeue", "filter", Map.of("queue", "b1"), "limit", 2));
        assertEquals(2, first.getInt("matched"));
        assertEquals(1, first.getInt("eligible"), "the newest two: the pending job and the other dead one");
        assertEquals(1, first.getInt("changed"));
        assertEquals("PENDING", given().get("/jobs/" + other).then().extract().path("status"));
        Set<String> requeued = new HashSet<>(List.of(other));
        String next = first.getString("next");
        int calls = 1;
        while (next != null) {
            JsonPath more = bulk(Map.of("action", "requeue", "filter", Map.of("queue", "b1", "status", "DEAD"),
                    "limit", 2, "after", next));
            assertEquals(more.getInt("matched"), more.getInt("changed"));
            next = more.getString("next");
            calls++;
        }
        assertTrue(calls >= 3, "5 dead jobs, 2 a call: " + calls + " calls");
        for (String id : timeouts) {
            JsonPath j = given().get("/jobs/" + id).then().statusCode(200).extract().jsonPath();
            assertEquals("PENDING", j.getString("status"), id);
            assertEquals(0, j.getInt("attempt"), id + ": attempts reset");
            requeued.add(id);
        }
        assertEquals(List.of(), search("queue=b1&status=DEAD"));
        List<Map<String, Object>> claimed = Jobs.claim(Map.of("workerId", "w", "queues", List.of("b1"), "limit", 50))
                .getList("jobs");
        assertEquals(requeued, new HashSet<>(claimed.stream().map(j -> (String) j.get("id")).toList()),
                "every requeued job is claimable; the scheduled one is not due: " + pending);
    }

    @Test
    void aBulkDeleteRemovesOnlyFinishedJobsAndARequeueCanReplaceThePayload() {
        String a = succeeded("b2");
        String b = succeeded("b2");
        String live = Jobs.enqueue(Map.of("queue", "b2", "type", "t"));
        JsonPath r = bulk(Map.of("action", "delete", "filter", Map.of("queue", "b2")));
        assertEquals(List.of(3, 2, 2, 0), List.of(r.getInt("matched"), r.getInt("eligible"), r.getInt("changed"),
                r.getInt("skipped")));
        given().get("/jobs/" + a).then().statusCode(404);
        given().get("/jobs/" + b).then().statusCode(404);
        given().get("/jobs/" + live).then().statusCode(200).body("status", equalTo("PENDING"));

        String d = dead("b3", "boom", Map.of("payload", Map.of("v", 1)));
        bulk(Map.of("action", "requeue", "filter", Map.of("queue", "b3"), "payload", Map.of("v", 2)));
        given().get("/jobs/" + d).then().statusCode(200).body("payload.v", equalTo(2)).body("status", equalTo("PENDING"))
                .body("attempt", equalTo(0));
    }

    @Test
    void aRequeueCanKeepTheAttemptsAndTheNextClaimCountsOn() {
        String bulked = dead("b6", "boom", Map.of("maxAttempts", 1));
        String single = dead("b7", "boom", Map.of());
        JsonPath r = bulk(Map.of("action", "requeue", "filter", Map.of("queue", "b6"), "keepAttempts", true));
        assertEquals(1, r.getInt("changed"));
        given().get("/jobs/" + bulked).then().body("status", equalTo("PENDING")).body("attempt", equalTo(1));
        given().contentType(ContentType.JSON).body(Map.of("keepAttempts", true)).post("/jobs/" + single + "/requeue")
                .then().statusCode(200).body("attempt", equalTo(1));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("b6"), "limit", 1));
        assertEquals(2, c.getInt("jobs[0].attempt"), "one more attempt, counted on");
        // it had run out of attempts: failing again ends it
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", "again"))
                .post("/jobs/" + bulked + "/fail").then().statusCode(200).body("status", equalTo("DEAD"));
        given().contentType(ContentType.JSON).body(Map.of("action", "cancel", "filter", Map.of("queue", "b7"),
                "keepAttempts", true)).post("/jobs/bulk").then().statusCode(400).body("detail", containsString("keepAttempts"));
    }

    @Test
    void aRequeueCanMoveJobsIntoAnotherExistingQueue() {
        String a = dead("b8", "boom", Map.of());
        String b = dead("b8", "boom", Map.of());
        String single = dead("b8", "boom", Map.of());
        given().contentType(ContentType.JSON).body(Map.of()).put("/queues/b8-retry").then().statusCode(200);
        given().contentType(ContentType.JSON).body(Map.of("queue", "b8-retry")).post("/jobs/" + single + "/requeue")
                .then().statusCode(200).body("queue", equalTo("b8-retry")).body("status", equalTo("PENDING"));
        JsonPath r = bulk(Map.of("action", "requeue", "filter", Map.of("queue", "b8", "status", "DEAD"),
                "queue", "b8-retry"));
        assertEquals(2, r.getInt("changed"));
        assertEquals(List.of(), Jobs.claim(Map.of("workerId", "w", "queues", List.of("b8"), "limit", 10))
                .getList("jobs"), "none left in the old queue");
        List<String> moved = Jobs.claim(Map.of("workerId", "w", "queues", List.of("b8-retry"), "limit", 10))
                .getList("jobs.id");
        assertEquals(java.util.Set.of(a, b, single), java.util.Set.copyOf(moved));

        // a queue that does not exist is refused, and so is a queue for another action; nothing changes
        String other = dead("b9", "boom", Map.of());
        String before = TestDb.snapshot();
        given().contentType(ContentType.JSON).body(Map.of("queue", "nowhere")).post("/jobs/" + other + "/requeue")
                .then().statusCode(400).body("detail", containsString("no queue named 'nowhere'"));
        given().contentType(ContentType.JSON).body(Map.of("action", "requeue", "filter", Map.of("queue", "b9"),
                "queue", "nowhere")).post("/jobs/bulk").then().statusCode(400).body("detail", containsString("nowhere"));
        given().contentType(ContentType.JSON).body(Map.of("action", "cancel", "filter", Map.of("queue", "b9"),
                "queue", "b8-retry")).post("/jobs/bulk").then().statusCode(400)
                .body("detail", containsString("'queue' is for requeue only"));
        given().contentType(ContentType.JSON).body(Map.of("queue", "bad name")).post("/jobs/" + other + "/requeue")
                .then().statusCode(400).body("detail", containsString("queue"));
        assertEquals(before, TestDb.snapshot(), "nothing was written");
    }

    @Test
    void badBulkRequestsAre400sThatChangeNothing() {
        dead("b4", "boom", Map.of());
        Jobs.enqueue(Map.of("queue", "b4", "type", "t"));
        String before = TestDb.snapshot();
        Map<Map<String, Object>, String> bad = new java.util.LinkedHashMap<>();
        bad.put(Map.of("action", "requeue", "filter", Map.of()), "filter");
        bad.put(Map.of("action", "requeue"), "filter");
        bad.put(Map.of("filter", Map.of("queue", "b4")), "action");
        bad.put(Map.of("action", "explode", "filter", Map.of("queue", "b4")), "action");
        bad.put(Map.of("action", "cancel", "filter", Map.of("queue", "b4"), "limit", 0), "limit");
        bad.put(Map.of("action", "cancel", "filter", Map.of("queue", "b4"), "limit", 10001), "limit");
        bad.put(Map.of("action", "cancel", "filter", Map.of("queue", "b4"), "payload", Map.of("v", 1)), "payload");
        bad.put(Map.of("action", "cancel", "filter", Map.of("queue", "b4", "status", "LOST")), "status");
        bad.put(Map.of("action", "cancel", "filter", Map.of("queue", "b4", "colour", "red")), "colour");
        bad.put(Map.of("action", "delete", "filter", Map.of("payload", List.of(1))), "payload");
        bad.put(Map.of("action", "delete", "filter", Map.of("queue", "b4"), "after", "x"), "after");
        bad.put(Map.of("action", "delete", "filter", Map.of("error", "")), "error");
        for (var e : bad.entrySet()) {
            given().contentType(ContentType.JSON).body(e.getKey()).post("/jobs/bulk").then().statusCode(400)
                    .contentType("application/problem+json").body("detail", containsString(e.getValue()));
        }
        assertEquals(before, TestDb.snapshot(), "nothing was written");
    }

    @Test
    void aBulkCancelRacingClaimersCancelsOrFlagsEveryJobAndItsCountsAddUp() throws Exception {
        int n = 300;
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Map.of("queue", "b5", "type", "t", "payload", Map.of("customer", i % 2 == 0 ? "acme" : "globex")));
        }
        if (TestDb.jsonStringsUnescaped()) {
            given().contentType(ContentType.JSON).body(Map.of("jobs", jobs)).post("/jobs/batch").then().statusCode(200);
        } else {
            // Babelfish hands JSON string members back escaped (an OPENJSON defect), which a batch's
            // payloads meet: one POST each there (the bulk cancel is what this test is about)
            for (Map<String, Object> job : jobs) {
                given().contentType(ContentType.JSON).body(job).post("/jobs").then().statusCode(201);
            }
        }
        Set<String> claimed = ConcurrentHashMap.newKeySet();
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            String worker = "w" + w;
            workers.add(pool.submit(() -> {
                long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (!done.get() && System.nanoTime() < end) {
                    for (Map<String, Object> j : Jobs.claim(Map.of("workerId", worker, "queues", List.of("b5"),
                            "limit", 3)).<Map<String, Object>>getList("jobs")) {
                        claimed.add((String) j.get("id"));
                    }
                }
                return null;
            }));
        }
        JsonPath r;
        try {
            r = bulk(Map.of("action", "cancel", "filter", Map.of("queue", "b5", "payload", Map.of("customer", "acme")),
                    "limit", 10000));
        } finally {
            done.set(true);
            for (Future<?> f : workers) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
        assertEquals(n / 2, r.getInt("matched"));
        assertEquals(r.getInt("eligible"), r.getInt("changed") + r.getInt("skipped"));
        assertNull(r.get("next"));
        // The workers only claim, so no acme job finishes: each is cancelled, or flagged (its worker
        // is told to stop), or was held by a claim's transaction at the moment the bulk cancel
        // reached it and was skipped, never waited for (issue 44). The counts say which, exactly.
        int cancelled = 0;
        int flagged = 0;
        int heldAndSkipped = 0;
        for (Map<String, Object> j : given().get("/jobs?queue=b5&limit=500").then().statusCode(200).extract()
                .jsonPath().<Map<String, Object>>getList("jobs")) {
            String id = (String) j.get("id");
            boolean acme = "acme".equals(((Map<?, ?>) j.get("payload")).get("customer"));
            String status = (String) j.get("status");
            if (!acme) {
                assertTrue(status.equals("PENDING") || status.equals("LEASED"), id + " untouched: " + status);
                assertNotEquals(Boolean.TRUE, j.get("cancelRequested"), id + " untouched");
            } else if (status.equals("CANCELLED")) {
                cancelled++;
            } else {
                assertEquals("LEASED", status, id);
                assertTrue(claimed.contains(id), id + " is held by a claimer");
                if (Boolean.TRUE.equals(j.get("cancelRequested"))) {
                    flagged++;
                } else {
                    heldAndSkipped++;
                }
            }
        }
        assertTrue(cancelled > 0, "some were cancelled outright");
        assertEquals(n / 2, r.getInt("eligible"), "every acme job was pending or leased when the scan read it");
        assertEquals(r.getInt("changed"), cancelled + flagged, "changed = cancelled + flagged: " + r.prettify());
        assertEquals(r.getInt("skipped"), heldAndSkipped, "skipped = left leased without the flag: " + r.prettify());
        assertEquals(n, given().get("/jobs?queue=b5&limit=500").then().extract().jsonPath().getList("jobs").size(),
                "no job lost");
    }

    private static String enc(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
    }
}
