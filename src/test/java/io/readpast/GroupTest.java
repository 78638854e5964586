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
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ordered groups: one job at a time per group, in enqueue order; other groups proceed. */
@QuarkusTest
class GroupTest {

    @TestHTTPResource("/")
    URI base;

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    static String enqueue(String queue, String group, int n) {
        Map<String, Object> body = new HashMap<>(Map.of("queue", queue, "type", "t", "payload", Map.of("n", n)));
        if (group != null) {
            body.put("groupKey", group);
        }
        return Jobs.enqueue(body);
    }

    static List<String> claimIds(String queue, int limit) {
        return Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", limit)).getList("jobs.id");
    }

    static JsonPath claimOne(String queue) {
        return Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", 1));
    }

    static void complete(String id, String lease) {
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease)).when().post("/jobs/" + id + "/complete")
                .then().statusCode(200);
    }

    @Test
    void oneJobPerGroupAtATimeInEnqueueOrder() {
        String a1 = enqueue("g", "a", 1);
        String a2 = enqueue("g", "a", 2);
        String a3 = enqueue("g", "a", 3);
        String b1 = enqueue("g", "b", 1);
        String b2 = enqueue("g", "b", 2);
        String u1 = enqueue("g", null, 1);
        String u2 = enqueue("g", null, 2);
        given().when().get("/jobs/" + a2).then().body("groupKey", equalTo("a"));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("g"), "limit", 10));
        List<String> first = c.getList("jobs.id");
        assertEquals(4, first.size(), "the head of each group and the ungrouped jobs: " + first);
        assertTrue(first.containsAll(List.of(a1, b1, u1, u2)), first.toString());
        assertEquals(List.of(), claimIds("g", 10), "every group has a job running");
        Map<String, String> leases = new HashMap<>();
        for (int i = 0; i < first.size(); i++) {
            leases.put(c.getString("jobs[" + i + "].id"), c.getString("jobs[" + i + "].leaseId"));
        }
        complete(a1, leases.get(a1));
        JsonPath next = claimOne("g");
        assertEquals(a2, next.getString("jobs[0].id"), "the next of group a, in order");
        // a failed job is retried before the rest of its group (it keeps its place)
        given().contentType(ContentType.JSON).body(Map.of("leaseId", leases.get(b1), "error", "again", "retryAfterSeconds", 0))
                .when().post("/jobs/" + b1 + "/fail").then().statusCode(200).body("status", equalTo("PENDING"));
        assertEquals(List.of(b1), claimIds("g", 10), "b1 again, not b2");
        // a released job keeps its place too
        complete(a2, next.getString("jobs[0].leaseId"));
        JsonPath a3c = claimOne("g");
        assertEquals(a3, a3c.getString("jobs[0].id"));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", a3c.getString("jobs[0].leaseId")))
                .when().post("/jobs/" + a3 + "/release").then().statusCode(200);
        assertEquals(List.of(a3), claimIds("g", 10));
        assertTrue(!claimIds("g", 10).contains(b2));
    }

    @Test
    void aDeadHeadLetsItsGroupGoOnAndARequeuedJobGoesToTheEnd() {
        String x1 = enqueue("gd", "x", 1);
        String x2 = enqueue("gd", "x", 2);
        JsonPath c = claimOne("gd");
        assertEquals(x1, c.getString("jobs[0].id"));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "retryable", false))
                .when().post("/jobs/" + x1 + "/fail").then().statusCode(200).body("status", equalTo("DEAD"));
        JsonPath c2 = claimOne("gd");
        assertEquals(x2, c2.getString("jobs[0].id"), "the group goes on past a dead letter");
        String x3 = enqueue("gd", "x", 3);
        given().contentType(ContentType.JSON).body("{}").when().post("/jobs/" + x1 + "/requeue").then().statusCode(200)
                .body("groupKey", equalTo("x"));
        complete(x2, c2.getString("jobs[0].leaseId"));
        JsonPath c3 = claimOne("gd");
        assertEquals(x3, c3.getString("jobs[0].id"), "x3 was enqueued before x1 was requeued");
        complete(x3, c3.getString("jobs[0].leaseId"));
        assertEquals(x1, claimOne("gd").getString("jobs[0].id"));
    }

    @Test
    void batchItemsKeepTheirOrderInTheirGroup() {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            jobs.add(Map.of("queue", "gb", "type", "t", "groupKey", "k", "payload", Map.of("n", i)));
        }
        jobs.add(Map.of("queue", "gb", "type", "t", "groupKey", "other", "payload", Map.of("n", 0)));
        given().contentType(ContentType.JSON).body(Map.of("jobs", jobs)).when().post("/jobs/batch").then().statusCode(200)
                .body("succeeded", equalTo(6));
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("gb"), "limit", 10));
            for (int k = 0; k < c.getList("jobs").size(); k++) {
                if ("k".equals(c.getString("jobs[" + k + "].groupKey"))) {
                    order.add(c.getInt("jobs[" + k + "].payload.n"));
                }
                complete(c.getString("jobs[" + k + "].id"), c.getString("jobs[" + k + "].leaseId"));
            }
        }
        assertEquals(List.of(1, 2, 3, 4, 5), order);
    }

    /**
     * Workers race over two groups enqueued concurrently by several producers: each group's jobs
     * run one at a time (no two leases of a group overlap) and in the order they were enqueued.
     */
    @Test
    void concurrentProducersAndWorkersKeepEachGroupSerialAndOrdered() throws Exception {
        Http http = new Http(base);
        int perGroup = 25;
        List<String> groups = List.of("p", "q");
        // producers: one per group, enqueueing in order, racing each other (and an ungrouped stream)
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> producers = new ArrayList<>();
            for (String g : groups) {
                producers.add(pool.submit(() -> {
                    for (int i = 1; i <= perGroup; i++) {
                        Http.Reply r = http.post("/jobs", Map.of("queue", "gc", "type", "t", "groupKey", g, "payload", Map.of("n", i)));
                        assertEquals(201, r.status());
                    }
                }));
            }
            producers.add(pool.submit(() -> {
                for (int i = 1; i <= perGroup; i++) {
                    assertEquals(201, http.post("/jobs", Map.of("queue", "gc", "type", "t", "payload", Map.of("n", i))).status());
                }
            }));
            // workers: claim, note when the claim came back, note when they start completing, complete
            record Run(String group, int n, long claimedAt, long completingAt) {
            }
            List<Run> runs = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger done = new AtomicInteger();
            int total = perGroup * 3;
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 5; w++) {
                String worker = "w" + w;
                workers.add(pool.submit(() -> {
                    start.await();
                    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (done.get() < total && System.nanoTime() < deadline) {
                        Http.Reply r = http.post("/claim", Map.of("workerId", worker, "queues", List.of("gc"), "limit", 2));
                        assertEquals(200, r.status());
                        long claimedAt = System.nanoTime();
                        for (JsonNode j : r.body().get("jobs")) {
                            String group = j.get("groupKey").isNull() ? null : j.get("groupKey").asText();
                            long completingAt = System.nanoTime();
                            runs.add(new Run(group, j.get("payload").get("n").asInt(), claimedAt, completingAt));
                            Http.Reply ok = http.post("/jobs/" + j.get("id").asText() + "/complete",
                                    Map.of("leaseId", j.get("leaseId").asText()));
                            assertEquals(200, ok.status());
                            done.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : producers) {
                f.get();
            }
            for (Future<?> f : workers) {
                f.get();
            }
            assertEquals(total, done.get(), "every job ran");
            for (String g : groups) {
                List<Run> ofGroup = new ArrayList<>();
                for (Run r : List.copyOf(runs)) {
                    if (g.equals(r.group())) {
                        ofGroup.add(r);
                    }
                }
                ofGroup.sort((x, y) -> Long.compare(x.claimedAt(), y.claimedAt()));
                assertEquals(perGroup, ofGroup.size());
                for (int i = 0; i < ofGroup.size(); i++) {
                    assertEquals(i + 1, ofGroup.get(i).n(), "group " + g + " ran in enqueue order");
                    if (i > 0) {
                        // the next job of a group was claimed only after the previous one's completion began
                        assertTrue(ofGroup.get(i).claimedAt() > ofGroup.get(i - 1).completingAt(),
                                "group " + g + ": job " + (i + 1) + " leased while job " + i + " was running");
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void badGroupKeysGetA400AndChangeNothing() {
        String before = TestDb.snapshot();
        for (Object key : List.of("", " ", "a\u0001b", "x".repeat(201), 5, true, List.of("a"), Map.of("k", 1))) {
            Map<String, Object> body = new HashMap<>(Map.of("queue", "gbad", "type", "t"));
            body.put("groupKey", key);
            given().contentType(ContentType.JSON).body(body).when().post("/jobs").then().statusCode(400)
                    .contentType("application/problem+json").body("detail", notNullValue());
        }
        assertEquals(before, TestDb.snapshot(), "the database is unchanged");
    }
}
