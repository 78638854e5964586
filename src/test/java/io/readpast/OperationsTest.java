package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Http;
import io.readpast.testsupport.Jobs;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Idempotency, batches, cancel, dead letters, requeue, purge, queues and browsing, through HTTP. */
@QuarkusTest
class OperationsTest {

    @TestHTTPResource("/")
    URI base;

    Http http;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    private static String enqueue(Map<String, Object> body) {
        return Jobs.enqueue(body);
    }

    private static JsonPath claimOne(String queue) {
        return Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "leaseSeconds", 60));
    }

    private static void post(String path, Object body, int status) {
        given().contentType(ContentType.JSON).body(body).when().post(path).then().statusCode(status);
    }

    // ---- producers ----------------------------------------------------------------------

    @Test
    void concurrentIdenticalEnqueuesMakeExactlyOneJob() throws Exception {
        int n = 16;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Http.Reply>> replies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            replies.add(pool.submit(() -> {
                start.await();
                return http.post("/jobs", Map.of("queue", "idem", "type", "t", "idempotencyKey", "order-42"));
            }));
        }
        start.countDown();
        Set<String> ids = new HashSet<>();
        int created = 0;
        for (Future<Http.Reply> f : replies) {
            Http.Reply r = f.get(60, TimeUnit.SECONDS);
            assertTrue(r.status() == 201 || r.status() == 200, () -> "status " + r.status() + " " + r.body());
            created += r.status() == 201 ? 1 : 0;
            ids.add(r.body().get("id").asText());
        }
        pool.shutdownNow();
        assertEquals(1, created, "exactly one enqueue created the job");
        assertEquals(1, ids.size(), "every enqueue answered with the same job");
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job"));

        // the key is global: another queue cannot take it while the job lives, and is not shown the job
        given().contentType(ContentType.JSON).body(Map.of("queue", "other", "type", "t", "idempotencyKey", "order-42"))
                .when().post("/jobs").then().statusCode(409).contentType("application/problem+json")
                .body("detail", org.hamcrest.Matchers.containsString("another queue"));
        JsonPath batch = given().contentType(ContentType.JSON)
                .body(Map.of("jobs", List.of(Map.of("queue", "other", "type", "t", "idempotencyKey", "order-42"))))
                .when().post("/jobs/batch").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(409), batch.getList("results.status"));
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job"));

        // once the job is finished the key is free again
        String id = ids.iterator().next();
        JsonPath c = claimOne("idem");
        post("/jobs/" + id + "/complete", Map.of("leaseId", c.getString("jobs[0].leaseId")), 200);
        given().contentType(ContentType.JSON).body(Map.of("queue", "idem", "type", "t", "idempotencyKey", "order-42"))
                .when().post("/jobs").then().statusCode(201);
    }

    @Test
    void namesAndKeysDifferingOnlyByCaseAreDistinct() {
        assumeTrue(!TestDb.babelfish(), "Babelfish cannot change a column's collation (V5 skips it there): "
                + "its server collation decides");
        // SQL Server compares with the column collation: the key columns are binary (V5), so
        // "Mail" and "mail" are two queues and "K" and "k" two keys, as on PostgreSQL.
        String upper = enqueue(Map.of("queue", "Mail", "type", "t", "idempotencyKey", "K"));
        String lower = enqueue(Map.of("queue", "mail", "type", "t", "idempotencyKey", "k"));
        assertFalse(upper.equals(lower), "keys differing by case made one job");
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("mail"), "limit", 10));
        assertEquals(List.of(lower), c.getList("jobs.id"));
        assertEquals(List.of("mail"), c.getList("jobs.queue"));
        List<String> names = given().when().get("/queues").then().statusCode(200).extract().jsonPath().getList("queues.name");
        assertTrue(names.containsAll(List.of("Mail", "mail")), "queues: " + names);
    }

    @Test
    void batchEnqueueAnswersPerItemAndABadItemFailsOnlyItself() {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish returns JSON string members still escaped (OPENJSON defect): batch payloads and results");
        List<Object> jobs = new ArrayList<>();
        jobs.add(Map.of("queue", "b", "type", "t", "payload", Map.of("n", 1)));
        jobs.add(Map.of("queue", "b"));                                           // no type
        jobs.add(Map.of("queue", "b", "type", "t", "idempotencyKey", "k1"));
        jobs.add(Map.of("queue", "b", "type", "t", "idempotencyKey", "k1"));      // same key: the same job
        jobs.add(Map.of("queue", "b", "type", "t", "priority", "high"));          // wrong type
        jobs.add("not an object");
        JsonPath r = given().contentType(ContentType.JSON).body(Map.of("jobs", jobs))
                .when().post("/jobs/batch").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(201, 400, 201, 200, 400, 400), r.getList("results.status"));
        assertEquals(List.of(0, 1, 2, 3, 4, 5), r.getList("results.index"));
        assertEquals(r.getString("results[2].id"), r.getString("results[3].id"));
        assertTrue(r.getString("results[1].error.detail").contains("type"));
        assertTrue(r.getString("results[4].error.detail").contains("priority"));
        assertEquals(3, r.getInt("succeeded"));
        assertEquals(3, r.getInt("failed"));
        assertEquals(2, TestDb.count("SELECT count(*) FROM readpast_job"));

        List<Object> tooMany = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            tooMany.add(Map.of("queue", "b", "type", "t"));
        }
        given().contentType(ContentType.JSON).body(Map.of("jobs", tooMany))
                .when().post("/jobs/batch").then().statusCode(400).contentType("application/problem+json");
        given().contentType(ContentType.JSON).body(Map.of("jobs", List.of()))
                .when().post("/jobs/batch").then().statusCode(400);
        assertEquals(2, TestDb.count("SELECT count(*) FROM readpast_job"));
    }

    // ---- workers ------------------------------------------------------------------------

    @Test
    void batchCompleteAnswersPerItem() {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish returns JSON string members still escaped (OPENJSON defect): batch payloads and results");
        for (int i = 0; i < 3; i++) {
            enqueue(Map.of("queue", "bc", "type", "t"));
        }
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("bc"), "limit", 3));
        List<String> ids = c.getList("jobs.id");
        List<String> leases = c.getList("jobs.leaseId");
        List<Object> items = new ArrayList<>();
        items.add(Map.of("id", ids.get(0), "leaseId", leases.get(0), "result", Map.of("r", 0)));
        items.add(Map.of("id", ids.get(1), "leaseId", leases.get(1)));
        items.add(Map.of("id", ids.get(2), "leaseId", "00000000-0000-4000-8000-000000000000")); // wrong lease
        items.add(Map.of("id", "99999999", "leaseId", leases.get(0)));                           // unknown job
        items.add(Map.of("id", ids.get(2), "leaseId", "not-a-uuid"));                            // invalid
        items.add(Map.of("id", ids.get(0), "leaseId", leases.get(0)));                           // a repeat: same answer
        JsonPath r = given().contentType(ContentType.JSON).body(Map.of("items", items))
                .when().post("/jobs/complete").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(200, 200, 409, 404, 400, 200), r.getList("results.status"));
        given().when().get("/jobs/" + ids.get(0)).then().body("status", equalTo("SUCCEEDED")).body("result.r", equalTo(0));
        given().when().get("/jobs/" + ids.get(1)).then().body("status", equalTo("SUCCEEDED"));
        given().when().get("/jobs/" + ids.get(2)).then().body("status", equalTo("LEASED"));
    }

    @Test
    void heartbeatProgressIsShownOnTheJob() {
        String id = enqueue(Map.of("queue", "pg", "type", "t"));
        String lease = claimOne("pg").getString("jobs[0].leaseId");
        post("/jobs/" + id + "/heartbeat", Map.of("leaseId", lease, "progress", Map.of("percent", 40, "message", "half")), 200);
        given().when().get("/jobs/" + id).then().body("progress.percent", equalTo(40))
                .body("progress.message", equalTo("half")).body("status", equalTo("PROCESSING"));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease, "progress", Map.of("percent", 101)))
                .when().post("/jobs/" + id + "/heartbeat").then().statusCode(400);
    }

    // ---- cancel -------------------------------------------------------------------------

    @Test
    void cancelPendingIsImmediate() {
        String id = enqueue(Map.of("queue", "cx", "type", "t"));
        given().when().post("/jobs/" + id + "/cancel").then().statusCode(200).body("status", equalTo("CANCELLED"));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"));
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE status = 5"));
        given().when().post("/jobs/" + id + "/cancel").then().statusCode(200).body("status", equalTo("CANCELLED"));
        assertEquals(List.of(), claimOne("cx").getList("jobs"));
        given().when().post("/jobs/424242/cancel").then().statusCode(404);
    }

    @Test
    void cancelOfARunningJobIsSeenOnHeartbeatAndEndsWhenTheWorkerGivesUp() {
        String id = enqueue(Map.of("queue", "cr", "type", "t"));
        String lease = claimOne("cr").getString("jobs[0].leaseId");
        post("/jobs/" + id + "/heartbeat", Map.of("leaseId", lease), 200);
        given().when().post("/jobs/" + id + "/cancel").then().statusCode(200)
                .body("status", equalTo("PROCESSING")).body("cancelRequested", equalTo(true));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease))
                .when().post("/jobs/" + id + "/heartbeat").then().statusCode(200).body("cancelRequested", equalTo(true));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease, "error", "stopping on request"))
                .when().post("/jobs/" + id + "/fail").then().statusCode(200).body("status", equalTo("CANCELLED"));

        String id2 = enqueue(Map.of("queue", "cr", "type", "t"));
        String lease2 = claimOne("cr").getString("jobs[0].leaseId");
        given().when().post("/jobs/" + id2 + "/cancel").then().statusCode(200).body("cancelRequested", equalTo(true));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease2))
                .when().post("/jobs/" + id2 + "/release").then().statusCode(200).body("status", equalTo("CANCELLED"));

        String id3 = enqueue(Map.of("queue", "cr", "type", "t"));
        Jobs.claim(Map.of("workerId", "w", "queues", List.of("cr"), "leaseSeconds", 1));
        given().when().post("/jobs/" + id3 + "/cancel").then().statusCode(200).body("cancelRequested", equalTo(true));
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                given().when().get("/jobs/" + id3).then().body("status", equalTo("CANCELLED")));

        // a finished job cannot be cancelled
        String id4 = enqueue(Map.of("queue", "cr", "type", "t"));
        String lease4 = claimOne("cr").getString("jobs[0].leaseId");
        post("/jobs/" + id4 + "/complete", Map.of("leaseId", lease4), 200);
        given().when().post("/jobs/" + id4 + "/cancel").then().statusCode(409).contentType("application/problem+json");
    }

    // ---- dead letters, requeue, purge -----------------------------------------------------

    /** Enqueues a job and kills it; the queue must have no other claimable job. */
    private String killJob(String queue, String type) {
        String id = enqueue(Map.of("queue", queue, "type", type, "payload", Map.of("v", 1)));
        JsonPath claimed = claimOne(queue);
        assertEquals(id, claimed.getString("jobs[0].id"));
        String lease = claimed.getString("jobs[0].leaseId");
        post("/jobs/" + id + "/fail", Map.of("leaseId", lease, "error", "fatal", "retryable", false), 200);
        return id;
    }

    @Test
    void deadLettersPageAndFilter() {
        String a1 = killJob("da", "x");
        String a2 = killJob("da", "y");
        String b1 = killJob("db", "x");
        String a3 = killJob("da", "x");
        JsonPath all = given().when().get("/dead-letters").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(a3, b1, a2, a1), all.getList("jobs.id"));
        assertEquals(List.of(a3, a2, a1), given().when().get("/dead-letters?queue=da").then().extract().jsonPath().getList("jobs.id"));
        assertEquals(List.of(a3, b1, a1), given().when().get("/dead-letters?type=x").then().extract().jsonPath().getList("jobs.id"));
        // walk with pages of one
        List<String> walked = new ArrayList<>();
        String after = null;
        do {
            JsonPath page = given().when().get("/dead-letters?limit=1" + (after == null ? "" : "&after=" + after))
                    .then().statusCode(200).extract().jsonPath();
            walked.addAll(page.getList("jobs.id"));
            after = page.getString("next");
        } while (after != null);
        assertEquals(List.of(a3, b1, a2, a1), walked);
        given().when().get("/dead-letters?limit=0").then().statusCode(400);
        given().when().get("/dead-letters?after=abc").then().statusCode(400);
    }

    @Test
    void requeueBringsADeadJobBackWithANewPayload() {
        String id = killJob("rq", "t");
        given().contentType(ContentType.JSON).body(Map.of("payload", Map.of("v", 2)))
                .when().post("/jobs/" + id + "/requeue").then().statusCode(200)
                .body("status", equalTo("PENDING")).body("attempt", equalTo(0)).body("payload.v", equalTo(2))
                .body("id", equalTo(id));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job_dead"));
        JsonPath c = claimOne("rq");
        assertEquals(id, c.getString("jobs[0].id"));
        assertEquals(1, c.getInt("jobs[0].attempt"));
        // a live job cannot be requeued
        given().contentType(ContentType.JSON).body("{}").when().post("/jobs/" + id + "/requeue").then().statusCode(409);

        String cancelled = enqueue(Map.of("queue", "rq", "type", "t", "payload", Map.of("keep", true)));
        given().when().post("/jobs/" + cancelled + "/cancel").then().statusCode(200);
        given().contentType(ContentType.JSON).body("{\"payload\":null}").when().post("/jobs/" + cancelled + "/requeue")
                .then().statusCode(200).body("status", equalTo("PENDING")).body("payload.keep", equalTo(true));
    }

    @Test
    void deleteRemovesOnlyFinishedJobs() {
        String dead = killJob("del", "t");
        given().when().delete("/jobs/" + dead).then().statusCode(204);
        given().when().get("/jobs/" + dead).then().statusCode(404);
        given().when().delete("/jobs/" + dead).then().statusCode(404);
        String pending = enqueue(Map.of("queue", "del", "type", "t"));
        given().when().delete("/jobs/" + pending).then().statusCode(409).contentType("application/problem+json");
        given().when().get("/jobs/" + pending).then().statusCode(200);
    }

    // ---- queues -------------------------------------------------------------------------

    @Test
    void queueListShowsCountsLagAndHidesInactiveQueues() {
        enqueue(Map.of("queue", "ql", "type", "t"));
        enqueue(Map.of("queue", "ql", "type", "t"));
        enqueue(Map.of("queue", "ql", "type", "t", "delaySeconds", 3600));
        claimOne("ql");
        killJob("ql2", "t");
        JsonPath list = given().when().get("/queues").then().statusCode(200).extract().jsonPath();
        Map<String, Object> ql = list.getMap("queues.find { it.name == 'ql' }");
        assertEquals(1, ql.get("pending"));
        assertEquals(1, ql.get("scheduled"));
        assertEquals(1, ql.get("leased"));
        assertEquals(0, ql.get("processing"));
        assertTrue(((Number) ql.get("lagSeconds")).doubleValue() >= 0);
        assertEquals(1, list.getInt("queues.find { it.name == 'ql2' }.dead"));

        given().contentType(ContentType.JSON).body(Map.of("active", false)).when().put("/queues/ql")
                .then().statusCode(200).body("active", equalTo(false));
        assertFalse(given().when().get("/queues").then().extract().jsonPath().getList("queues.name").contains("ql"));
        assertTrue(given().when().get("/queues?all=true").then().extract().jsonPath().getList("queues.name").contains("ql"));
        assertEquals(List.of(), claimOne("ql").getList("jobs"), "an inactive queue is never claimed");
    }

    @Test
    void pauseAndResumeEndpoints() {
        String id = enqueue(Map.of("queue", "pr", "type", "t"));
        given().contentType(ContentType.JSON).body(Map.of("maxWorkers", 4)).when().put("/queues/pr").then().statusCode(200);
        given().when().post("/queues/pr/pause").then().statusCode(200).body("paused", equalTo(true))
                .body("maxWorkers", equalTo(4));
        assertEquals(List.of(), claimOne("pr").getList("jobs"));
        given().when().post("/queues/pr/resume").then().statusCode(200).body("paused", equalTo(false))
                .body("maxWorkers", equalTo(4));
        assertEquals(id, claimOne("pr").getString("jobs[0].id"));
        given().when().post("/queues/bad%20name/pause").then().statusCode(400);
        // a typo makes no queue: pause and resume of an unknown name are 404
        given().when().post("/queues/pr-typo/pause").then().statusCode(404).contentType("application/problem+json");
        given().when().post("/queues/pr-typo/resume").then().statusCode(404);
        given().when().get("/queues/pr-typo").then().statusCode(404);
    }

    @Test
    void queueDefaultsApplyToLeaseAttemptsAndBackoff() {
        given().contentType(ContentType.JSON)
                .body(Map.of("leaseSeconds", 600, "maxAttempts", 7, "backoffBaseSeconds", 0, "backoffCapSeconds", 0))
                .when().put("/queues/qd").then().statusCode(200)
                .body("leaseSeconds", equalTo(600)).body("maxAttempts", equalTo(7));
        String id = enqueue(Map.of("queue", "qd", "type", "t"));
        given().when().get("/jobs/" + id).then().body("maxAttempts", equalTo(7));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("qd")));
        Instant expires = Instant.parse(c.getString("jobs[0].leaseExpiresAt"));
        Instant updated = Instant.parse(c.getString("jobs[0].updatedAt"));
        assertEquals(600, Duration.between(updated, expires).toSeconds(), 2, "queue lease length applied");
        // zero backoff: the failed job is due again at once
        post("/jobs/" + id + "/fail", Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", "x"), 200);
        assertEquals(id, claimOne("qd").getString("jobs[0].id"));
    }

    // ---- browsing -----------------------------------------------------------------------

    @Test
    void browseFiltersByQueueStatusTypeAndTag() {
        String a = enqueue(Map.of("queue", "br1", "type", "email", "tags", List.of("vip", "eu")));
        String b = enqueue(Map.of("queue", "br1", "type", "sms", "tags", List.of("eu")));
        String dead = killJob("br2", "email");
        String c = enqueue(Map.of("queue", "br2", "type", "email"));
        assertEquals(List.of(c, dead, b, a), given().when().get("/jobs").then().statusCode(200).extract().jsonPath().getList("jobs.id"));
        assertEquals(List.of(b, a), given().when().get("/jobs?queue=br1").then().extract().jsonPath().getList("jobs.id"));
        assertEquals(List.of(c, dead, a), given().when().get("/jobs?type=email").then().extract().jsonPath().getList("jobs.id"));
        assertEquals(List.of(a), given().when().get("/jobs?tag=vip").then().extract().jsonPath().getList("jobs.id"));
        assertEquals(List.of(dead), given().when().get("/jobs?status=DEAD").then().extract().jsonPath().getList("jobs.id"));
        assertEquals(List.of(c, dead), given().when().get("/jobs?status=DEAD,PENDING&queue=br2").then().extract().jsonPath().getList("jobs.id"));
        given().when().get("/jobs?status=FINISHED").then().statusCode(400).contentType("application/problem+json");
        // the statuses as the spec lists them: upper case
        given().when().get("/jobs?status=dead").then().statusCode(400).contentType("application/problem+json");
        given().when().get("/jobs?limit=100000").then().statusCode(400);
        given().when().get("/jobs").then().body("jobs[0].leaseId", nullValue()).body("next", nullValue());
    }

    @Test
    void paginationHasNoGapsOrRepeatsUnderConcurrentInserts() throws Exception {
        // a mix of hot, archived and dead jobs
        Set<String> before = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            before.add(enqueue(Map.of("queue", "pg" + (i % 3), "type", "t")));
        }
        for (int i = 0; i < 10; i++) {
            JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("pg0"), "limit", 1));
            post("/jobs/" + c.getString("jobs[0].id") + "/complete", Map.of("leaseId", c.getString("jobs[0].leaseId")), 200);
        }
        for (int i = 0; i < 5; i++) {
            before.add(killJob("pgd", "t"));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger inserted = new AtomicInteger();
        ExecutorService producer = Executors.newSingleThreadExecutor();
        Future<?> f = producer.submit(() -> {
            while (!stop.get() && inserted.get() < 500) {
                assertEquals(201, http.post("/jobs", Map.of("queue", "pg1", "type", "t")).status());
                inserted.incrementAndGet();
            }
            return null;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> inserted.get() > 5);
        List<String> seen = new ArrayList<>();
        String after = null;
        int pages = 0;
        do {
            Http.Reply page = http.send("GET", "/jobs?limit=7" + (after == null ? "" : "&after=" + after), null,
                    Duration.ofSeconds(10));
            assertEquals(200, page.status());
            for (JsonNode j : page.body().get("jobs")) {
                seen.add(j.get("id").asText());
            }
            after = page.body().get("next").isNull() ? null : page.body().get("next").asText();
            pages++;
        } while (after != null);
        stop.set(true);
        f.get(30, TimeUnit.SECONDS);
        producer.shutdownNow();
        assertEquals(seen.size(), new HashSet<>(seen).size(), "no job appears twice");
        assertTrue(new HashSet<>(seen).containsAll(before), "every job that existed before the walk was seen");
        List<Long> asLongs = seen.stream().map(Long::parseLong).toList();
        List<Long> sorted = new ArrayList<>(asLongs);
        sorted.sort(java.util.Comparator.reverseOrder());
        assertEquals(sorted, asLongs, "newest first throughout");
        assertTrue(pages > 5);
    }
}
