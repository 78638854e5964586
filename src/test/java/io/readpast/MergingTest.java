package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.Http;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the broker merges for its clients (readpast.merging.*, on in the suite): concurrent claims
 * of one queue share statements, yet each claim gets at most its limit, its own leases and its
 * own worker id, and every job goes to exactly one claim; concurrent enqueues share inserts, and
 * an idempotency key given by many at once makes one job; a merged ack-and-claim answers a stale
 * lease with 409 for that item only; a claim whose client went away gives its jobs back at once.
 */
@QuarkusTest
class MergingTest {

    @TestHTTPResource("/")
    URI base;

    Http http;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    /** readpast_merged_* of the broker's /q/metrics: {statements, requests} of a kind. */
    private long[] merged(String kind) {
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        long[] out = new long[2];
        for (int i = 0; i < 2; i++) {
            Matcher m = Pattern.compile("readpast_merged_" + (i == 0 ? "statements" : "requests")
                    + "_total\\{kind=\"" + kind + "\"[^}]*} ([0-9.E]+)").matcher(text);
            assertTrue(m.find(), "the metric of " + kind + " is served:\n" + text.lines()
                    .filter(l -> l.contains("merged")).toList());
            out[i] = (long) Double.parseDouble(m.group(1));
        }
        return out;
    }

    /**
     * GET /stats/merging (the dashboard's line on the Queues page) counts what the metrics count:
     * requests that ran alone are one statement each, and a waiting long poll shows as waiting.
     */
    @Test
    void theStatsEndpointCountsWhatTheMetricsCount() throws Exception {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish merges no enqueues (its OPENJSON hands a payload carried in "
                + "the merged insert back escaped: JobStore.mergesEnqueues)");
        io.restassured.path.json.JsonPath before = given().get("/stats/merging").then().statusCode(200)
                .extract().jsonPath();
        for (int i = 0; i < 3; i++) {
            given().contentType(io.restassured.http.ContentType.JSON).body(Map.of("queue", "merge-stats", "type", "t"))
                    .post("/jobs").then().statusCode(201);
        }
        io.restassured.path.json.JsonPath after = given().get("/stats/merging").then().statusCode(200)
                .extract().jsonPath();
        assertEquals(3, after.getLong("enqueues.requests") - before.getLong("enqueues.requests"),
                "three enqueues, one after another");
        assertEquals(3, after.getLong("enqueues.statements") - before.getLong("enqueues.statements"),
                "each ran alone: a statement each");
        for (String kind : List.of("enqueues", "claims", "acks")) {
            long[] metrics = merged(kind);
            assertEquals(metrics[0], after.getLong(kind + ".statements"), kind + " statements, as the metric");
            assertEquals(metrics[1], after.getLong(kind + ".requests"), kind + " requests, as the metric");
        }

        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Http.Reply> poll = pool.submit(() -> http.send("POST", "/claim", Map.of("workerId", "stats-w",
                    "queues", List.of("merge-stats-wait"), "limit", 1, "waitSeconds", 20), Duration.ofSeconds(30)));
            await().atMost(Duration.ofSeconds(10)).until(() -> given().get("/stats/merging").then().statusCode(200)
                    .extract().jsonPath().getInt("claimsWaiting") >= 1);
            given().contentType(io.restassured.http.ContentType.JSON)
                    .body(Map.of("queue", "merge-stats-wait", "type", "t")).post("/jobs").then().statusCode(201);
            Http.Reply r = poll.get(30, TimeUnit.SECONDS);
            assertEquals(200, r.status());
            assertEquals(1, r.body().get("jobs").size(), "the waiting claim got the job");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentLongPollsShareStatementsAndEachGetsItsOwnSlice() throws Exception {
        int workers = 24;
        int jobs = 600;
        long[] before = merged("claims");
        ExecutorService pool = Executors.newFixedThreadPool(workers + 2);
        Map<String, String> holder = new ConcurrentHashMap<>();
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch started = new CountDownLatch(workers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                String worker = "w" + w;
                int limit = 1 + w % 7;
                running.add(pool.submit(() -> {
                    started.countDown();
                    Set<String> leases = new HashSet<>();
                    while (holder.size() < jobs) {
                        Http.Reply r = http.send("POST", "/claim", Map.of("workerId", worker, "queues", List.of("merge"),
                                "limit", limit, "waitSeconds", 2, "leaseSeconds", 120), Duration.ofSeconds(30));
                        if (r.status() != 200) {
                            problems.add(worker + ": " + r.status() + " " + r.body());
                            return null;
                        }
                        JsonNode got = r.body().get("jobs");
                        if (got.size() > limit) {
                            problems.add(worker + " asked for " + limit + " and got " + got.size());
                        }
                        for (JsonNode j : got) {
                            if (!worker.equals(j.get("workerId").asText())) {
                                problems.add(worker + " got a job leased to " + j.get("workerId").asText());
                            }
                            if (!leases.add(j.get("leaseId").asText())) {
                                problems.add(worker + " got a lease twice");
                            }
                            String before2 = holder.putIfAbsent(j.get("id").asText(), worker);
                            if (before2 != null) {
                                problems.add("job " + j.get("id").asText() + " leased to " + before2 + " and " + worker);
                            }
                        }
                    }
                    return null;
                }));
            }
            assertTrue(started.await(30, TimeUnit.SECONDS));
            // a trickle of enqueues: each wakes the waiting claims together
            for (int i = 0; i < jobs / 20; i++) {
                List<Map<String, Object>> batch = new ArrayList<>();
                for (int k = 0; k < 20; k++) {
                    batch.add(Map.of("queue", "merge", "type", "t"));
                }
                assertEquals(200, http.post("/jobs/batch", Map.of("jobs", batch)).status());
            }
            for (Future<?> f : running) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), problems);
        assertEquals(jobs, holder.size(), "every job leased once");
        // the database agrees: each job's worker is the claim that got it
        for (Map.Entry<String, String> e : holder.entrySet()) {
            String worker = TestDb.count("SELECT count(*) FROM readpast_job WHERE id = ? AND worker_id = ?",
                    Long.parseLong(e.getKey()), e.getValue()) == 1 ? e.getValue() : null;
            assertEquals(e.getValue(), worker, "job " + e.getKey() + " is stored as leased to its claim's worker");
        }
        long[] after = merged("claims");
        long statements = after[0] - before[0];
        long requests = after[1] - before[1];
        assertTrue(requests > statements, "claims were merged: " + requests + " claims in " + statements + " statements");
    }

    @Test
    void anIdempotencyKeyGivenByManyAtOnceMakesOneJobAndEnqueuesShareInserts() throws Exception {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish merges no enqueues (its OPENJSON hands a payload carried in "
                + "the merged insert back escaped: JobStore.mergesEnqueues)");
        long[] before = merged("enqueues");
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<Http.Reply>> replies = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                int k = i;
                replies.add(pool.submit(() -> http.post("/jobs", k % 2 == 0
                        ? Map.of("queue", "merge-e", "type", "t", "idempotencyKey", "the-one")
                        : Map.of("queue", "merge-e", "type", "t", "payload", Map.of("n", k)))));
            }
            Set<String> keyed = new HashSet<>();
            int created = 0;
            for (int i = 0; i < replies.size(); i++) {
                Http.Reply r = replies.get(i).get(60, TimeUnit.SECONDS);
                assertTrue(r.status() == 201 || r.status() == 200, r.toString());
                if (i % 2 == 0) {
                    keyed.add(r.body().get("id").asText());
                    created += r.status() == 201 ? 1 : 0;
                } else {
                    assertEquals(201, r.status(), r.toString());
                }
            }
            assertEquals(1, keyed.size(), "one job for the key: " + keyed);
            assertEquals(1, created, "one 201 for the key, the others 200");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(33, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'merge-e'"));
        long[] after = merged("enqueues");
        assertTrue(after[1] - before[1] >= 64, "every enqueue went through the merging line");
    }

    @Test
    void aMergedAckAndClaimAnswersAStaleLeaseForThatItemOnly() throws Exception {
        for (int i = 0; i < 6; i++) {
            http.post("/jobs", Map.of("queue", "merge-a", "type", "t"));
        }
        JsonNode first = http.post("/claim", Map.of("workerId", "a", "queues", List.of("merge-a"), "limit", 2)).body();
        JsonNode second = http.post("/claim", Map.of("workerId", "b", "queues", List.of("merge-a"), "limit", 2)).body();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            // both at once: acks of both, one of a's stale (a wrong lease)
            Future<Http.Reply> a = pool.submit(() -> http.post("/claim", Map.of("workerId", "a", "queues", List.of("merge-a"),
                    "limit", 1, "ack", List.of(
                            Map.of("id", first.get("jobs").get(0).get("id").asText(), "leaseId", first.get("jobs").get(0).get("leaseId").asText()),
                            Map.of("id", first.get("jobs").get(1).get("id").asText(), "leaseId", "00000000-0000-4000-8000-000000000000")))));
            Future<Http.Reply> b = pool.submit(() -> http.post("/claim", Map.of("workerId", "b", "queues", List.of("merge-a"),
                    "limit", 1, "ack", List.of(
                            Map.of("id", second.get("jobs").get(0).get("id").asText(), "leaseId", second.get("jobs").get(0).get("leaseId").asText()),
                            Map.of("id", second.get("jobs").get(1).get("id").asText(), "leaseId", second.get("jobs").get(1).get("leaseId").asText())))));
            JsonNode ra = a.get(30, TimeUnit.SECONDS).body();
            JsonNode rb = b.get(30, TimeUnit.SECONDS).body();
            assertEquals(200, ra.get("acks").get(0).get("status").asInt(), ra.toString());
            assertEquals(409, ra.get("acks").get(1).get("status").asInt(), ra.toString());
            assertEquals(200, rb.get("acks").get(0).get("status").asInt(), rb.toString());
            assertEquals(200, rb.get("acks").get(1).get("status").asInt(), rb.toString());
            assertEquals(1, ra.get("jobs").size());
            assertEquals(1, rb.get("jobs").size());
            assertEquals("a", ra.get("jobs").get(0).get("workerId").asText());
            assertEquals("b", rb.get("jobs").get(0).get("workerId").asText());
        } finally {
            pool.shutdownNow();
        }
        assertEquals(3, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = 'merge-a'"),
                "the three held leases were completed, the stale one not");
        assertEquals("LEASED", http.send("GET", "/jobs/" + first.get("jobs").get(1).get("id").asText(), null,
                Duration.ofSeconds(10)).body().get("status").asText(), "the job of the stale ack is untouched");
    }

    /**
     * Enqueues {@code n} jobs into {@code queue} in one batch ({@code job} gives the extra fields
     * of each, or null) and claims them all as {@code worker}: the claimed jobs in enqueue order.
     */
    private JsonNode[] enqueuedAndClaimed(String queue, String worker, int n,
                                          java.util.function.IntFunction<Map<String, Object>> job) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, Object> one = new HashMap<>(Map.of("queue", queue, "type", "t"));
            Map<String, Object> extra = job == null ? null : job.apply(i);
            if (extra != null) {
                one.putAll(extra);
            }
            batch.add(one);
        }
        JsonNode enqueued = http.post("/jobs/batch", Map.of("jobs", batch)).body();
        JsonNode jobs = http.post("/claim", Map.of("workerId", worker, "queues", List.of(queue), "limit", n)).body()
                .get("jobs");
        assertEquals(n, jobs.size(), "every job claimed");
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < n; i++) {
            index.put(enqueued.get("results").get(i).get("id").asText(), i);
        }
        JsonNode[] inOrder = new JsonNode[n];
        jobs.forEach(j -> inOrder[index.get(j.get("id").asText())] = j);
        return inOrder;
    }

    /**
     * The answers of one race: jobs 0-29 each sent alone to POST /jobs/{id}/{action}, and the
     * rest in one POST /jobs/{action}, all released at once so that they meet in the merging
     * line. Job 0 and the batch's first item carry a lease they never had: each answers 409
     * alone (checked here), and every other batch item 200.
     */
    private record Race(List<Http.Reply> singles, Http.Reply batch) {
        static final int SINGLES = 30;
    }

    private Race race(String action, JsonNode[] jobs, java.util.function.IntFunction<Map<String, Object>> single,
                      java.util.function.IntFunction<Map<String, Object>> item) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Http.Reply>> singles = new ArrayList<>();
            for (int i = 0; i < Race.SINGLES; i++) {
                String id = jobs[i].get("id").asText();
                Map<String, Object> body = single.apply(i);
                singles.add(pool.submit(() -> {
                    go.await();
                    return http.post("/jobs/" + id + "/" + action, body);
                }));
            }
            List<Map<String, Object>> items = new ArrayList<>();
            for (int i = Race.SINGLES; i < jobs.length; i++) {
                items.add(item.apply(i));
            }
            Future<Http.Reply> together = pool.submit(() -> {
                go.await();
                return http.post("/jobs/" + action, Map.of("items", items));
            });
            go.countDown();
            List<Http.Reply> replies = new ArrayList<>();
            for (Future<Http.Reply> f : singles) {
                replies.add(f.get(60, TimeUnit.SECONDS));
            }
            assertEquals(409, replies.get(0).status(), replies.get(0).toString());
            Http.Reply b = together.get(60, TimeUnit.SECONDS);
            assertEquals(200, b.status(), b.toString());
            for (int i = Race.SINGLES; i < jobs.length; i++) {
                assertEquals(i == Race.SINGLES ? 409 : 200, b.body().get("results").get(i - Race.SINGLES).get("status")
                        .asInt(), b.toString());
            }
            return new Race(replies, b);
        } finally {
            pool.shutdownNow();
        }
    }

    /** The acks metric since {@code before}: at least {@code atLeast} requests went through the line, in fewer statements. */
    private void assertAcksMerged(long[] before, long atLeast, String what) {
        long[] after = merged("acks");
        long statements = after[0] - before[0];
        long requests = after[1] - before[1];
        assertTrue(requests >= atLeast, "every one of the " + what + " went through the merging line: " + requests);
        assertTrue(requests > statements, what + " were merged: " + requests + " in " + statements + " statements");
    }

    /**
     * Single completions (POST /jobs/{id}/complete) that arrive together share statements, and
     * each is answered with its own job as SUCCEEDED and its own result; a stale lease among them
     * is answered 409 for that job only, and a completion sent twice at once answers 200 twice
     * with the job completed once.
     */
    @Test
    void mergedSingleCompletionsAnswerEachWithItsOwnJob() throws Exception {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish merges no acks (its OPENJSON hands a result or an error "
                + "carried in the merged statement's items back escaped: JobStore.mergesAcks)");
        int n = 64;
        JsonNode[] jobs = enqueuedAndClaimed("merge-c", "c", n, null);
        String stale = "00000000-0000-4000-8000-000000000000";
        long[] before = merged("acks");
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Http.Reply>> replies = new ArrayList<>();
        try {
            // job 0 with a lease it never had; job 1 completed twice at once; the rest once each
            for (int i = 0; i <= n; i++) {
                JsonNode job = jobs[i == n ? 1 : i];
                String lease = i == 0 ? stale : job.get("leaseId").asText();
                int k = i == n ? 1 : i;
                replies.add(pool.submit(() -> {
                    go.await();
                    return http.post("/jobs/" + job.get("id").asText() + "/complete",
                            Map.of("leaseId", lease, "result", Map.of("k", k)));
                }));
            }
            go.countDown();
            for (int i = 0; i <= n; i++) {
                Http.Reply r = replies.get(i).get(60, TimeUnit.SECONDS);
                JsonNode job = jobs[i == n ? 1 : i];
                if (i == 0) {
                    assertEquals(409, r.status(), r.toString());
                    continue;
                }
                assertEquals(200, r.status(), r.toString());
                assertEquals(job.get("id").asText(), r.body().get("id").asText(), "its own job");
                assertEquals("SUCCEEDED", r.body().get("status").asText(), r.toString());
                if (i != 1 && i != n) {
                    assertEquals(i, r.body().get("result").get("k").asInt(), "its own result: " + r);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(n - 1, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = 'merge-c'"),
                "every held lease completed once, the stale one not");
        assertEquals("LEASED", http.send("GET", "/jobs/" + jobs[0].get("id").asText(), null,
                Duration.ofSeconds(10)).body().get("status").asText(), "the job of the stale lease is untouched");
        assertAcksMerged(before, n + 1, "completions");
    }

    /**
     * Releases, single (POST /jobs/{id}/release) and batch (POST /jobs/release), that arrive
     * together share statements, and each item is answered as it would be alone: a stale lease
     * 409 for that item only, a cancel-requested job CANCELLED, a delayed one due later, the rest
     * PENDING again in their place with the claim's attempt given back.
     */
    @Test
    void mergedReleasesAnswerEachItemAsAlone() throws Exception {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish merges no acks (its OPENJSON hands a result or an error "
                + "carried in the merged statement's items back escaped: JobStore.mergesAcks)");
        int n = 40;
        JsonNode[] jobs = enqueuedAndClaimed("merge-r", "r", n, null);
        String stale = "00000000-0000-4000-8000-000000000000";
        String cancelled = jobs[2].get("id").asText();
        assertEquals(200, http.post("/jobs/" + cancelled + "/cancel", null).status());
        long[] before = merged("acks");
        // jobs 0-29 one by one (0 with a lease it never had, 1 delayed a minute); 30-39 in one batch (30 stale)
        Race race = race("release", jobs,
                i -> i == 1 ? Map.of("leaseId", jobs[i].get("leaseId").asText(), "delaySeconds", 60)
                        : Map.of("leaseId", i == 0 ? stale : jobs[i].get("leaseId").asText()),
                i -> Map.of("id", jobs[i].get("id").asText(), "leaseId", i == 30 ? stale : jobs[i].get("leaseId").asText()));
        for (int i = 1; i < Race.SINGLES; i++) {
            Http.Reply r = race.singles().get(i);
            assertEquals(200, r.status(), r.toString());
            assertEquals(jobs[i].get("id").asText(), r.body().get("id").asText(), "its own job");
            assertEquals(i == 2 ? "CANCELLED" : "PENDING", r.body().get("status").asText(), r.toString());
        }
        assertEquals("LEASED", http.send("GET", "/jobs/" + jobs[0].get("id").asText(), null,
                Duration.ofSeconds(10)).body().get("status").asText(), "the job of a stale lease is untouched");
        // all but the two stale ones (still leased), the delayed one and the cancelled one
        assertEquals(n - 4, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'merge-r' AND status = 0"
                + " AND lease_id IS NULL AND attempt = 0"), "the others are pending again at once, the attempt given back");
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'merge-r' AND status = 6"),
                "the delayed one is due later");
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = 'merge-r' AND status = 5"),
                "the cancel-requested one was cancelled");
        assertAcksMerged(before, 31, "releases");
    }

    /**
     * Failure reports, single (POST /jobs/{id}/fail) and batch (POST /jobs/fail), that arrive
     * together share their retries' statements, and each item is answered as it would be alone:
     * a stale lease 409 for that item only, a fatal error or a last attempt DEAD, a
     * cancel-requested job CANCELLED, the rest PENDING again with their error recorded.
     */
    @Test
    void mergedFailuresAnswerEachItemAsAlone() throws Exception {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish merges no acks (its OPENJSON hands a result or an error "
                + "carried in the merged statement's items back escaped: JobStore.mergesAcks)");
        int n = 40;
        // job 3 has one attempt only
        JsonNode[] byIndex = enqueuedAndClaimed("merge-f", "f", n, i -> i == 3 ? Map.of("maxAttempts", 1) : null);
        String stale = "00000000-0000-4000-8000-000000000000";
        assertEquals(200, http.post("/jobs/" + byIndex[2].get("id").asText() + "/cancel", null).status());
        long[] before = merged("acks");
        // jobs 0-29 one by one: 0 with a lease it never had, 1 fatal, 2 cancel-requested, 3 on its
        // last attempt, 4 retried after a minute; 30-39 in one batch (30 stale)
        Race race = race("fail", byIndex, i -> {
            Map<String, Object> body = new HashMap<>(Map.of("leaseId", i == 0 ? stale : byIndex[i].get("leaseId").asText(),
                    "error", "boom " + i));
            if (i == 1) {
                body.put("retryable", false);
            }
            if (i == 4) {
                body.put("retryAfterSeconds", 60);
            }
            return body;
        }, i -> Map.of("id", byIndex[i].get("id").asText(), "error", "boom " + i,
                "leaseId", i == 30 ? stale : byIndex[i].get("leaseId").asText()));
        for (int i = 1; i < Race.SINGLES; i++) {
            Http.Reply r = race.singles().get(i);
            assertEquals(200, r.status(), r.toString());
            assertEquals(byIndex[i].get("id").asText(), r.body().get("id").asText(), "its own job");
            String expected = i == 1 || i == 3 ? "DEAD" : i == 2 ? "CANCELLED" : "PENDING";
            assertEquals(expected, r.body().get("status").asText(), i + ": " + r);
            assertEquals("boom " + i, r.body().get("lastError").asText(), i + ": " + r);
        }
        assertEquals("LEASED", http.send("GET", "/jobs/" + byIndex[0].get("id").asText(), null,
                Duration.ofSeconds(10)).body().get("status").asText(), "the job of a stale lease is untouched");
        // retried (after the backoff): all but the two stale (leased), the fatal and the last-attempt
        // one (dead) and the cancelled one
        assertEquals(n - 5, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'merge-f' AND status IN (0, 6)"
                + " AND lease_id IS NULL AND attempt = 1 AND last_error LIKE 'boom %'"), "retried with the error");
        JsonNode delayed = http.send("GET", "/jobs/" + byIndex[4].get("id").asText(), null, Duration.ofSeconds(10)).body();
        Instant now = Instant.parse(delayed.get("updatedAt").asText());
        Instant later = Instant.parse(delayed.get("runAt").asText());
        assertTrue(later.isAfter(now.plusSeconds(50)), "the one that asked for a minute is due a minute later: " + later);
        assertEquals(2, TestDb.count("SELECT count(*) FROM readpast_job_dead WHERE queue = 'merge-f'"), "two dead");
        JsonNode retried = http.send("GET", "/jobs/" + byIndex[35].get("id").asText(), null, Duration.ofSeconds(10)).body();
        assertEquals(1, retried.get("errors").size(), retried.toString());
        assertEquals("boom 35", retried.get("errors").get(0).get("error").asText(), retried.toString());
        assertEquals("f", retried.get("errors").get(0).get("workerId").asText(), retried.toString());
        assertAcksMerged(before, 26, "retries");
    }

    /** A metric of the broker's /q/metrics (the first series of that name and labels), or 0 when absent. */
    private static double metric(String name, String labels) {
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        // a sample may carry an exemplar after its value (# {span_id=...})
        Matcher m = Pattern.compile("(?m)^" + name + "\\{[^}]*" + Pattern.quote(labels) + "[^}]*} ([0-9.E+-]+)").matcher(text);
        if (m.find()) {
            return Double.parseDouble(m.group(1));
        }
        Matcher bare = Pattern.compile("(?m)^" + name + " ([0-9.E+-]+)").matcher(text);
        return bare.find() ? Double.parseDouble(bare.group(1)) : 0;
    }

    /**
     * A long poll whose client hangs up: when a job arrives the claim runs, finds the client
     * gone, and gives the job back at once (released, no attempt spent), rather than leaving it
     * leased to nobody for its 300 s lease.
     */
    @Test
    void aClaimWhoseClientWentAwayGivesItsJobsBackAtOnce() throws Exception {
        String body = "{\"workerId\":\"gone\",\"queues\":[\"merge-gone\"],\"limit\":5,\"waitSeconds\":20,\"leaseSeconds\":300}";
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /claim HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
            out.flush();
            // hang up once the claim is waiting for work
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
                    .until(() -> metric("readpast_claims_waiting", "") >= 1);
        }
        String id = http.post("/jobs", Map.of("queue", "merge-gone", "type", "t")).body().get("id").asText();
        // the waiting claim takes the job, finds its client gone and gives it back (released):
        // claimable again well before its 300 s lease would run out
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> metric("readpast_jobs_released_total", "queue=\"merge-gone\"") >= 1);
        JsonNode job = http.send("GET", "/jobs/" + id, null, Duration.ofSeconds(10)).body();
        assertEquals("PENDING", job.get("status").asText(), job.toString());
        assertEquals(0, job.get("attempt").asInt(), "no attempt spent: " + job);
        JsonNode claimed = http.post("/claim", Map.of("workerId", "here", "queues", List.of("merge-gone"))).body();
        assertEquals(id, claimed.get("jobs").get(0).get("id").asText(), "another worker gets it at once");
        assertEquals(1, claimed.get("jobs").get(0).get("attempt").asInt(), claimed.toString());
    }
}
