package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Http;
import io.readpast.testsupport.Jobs;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rate limits per queue: at most N claims per window, counted in the database, claims never wait. */
@QuarkusTest
class RateLimitTest {

    @TestHTTPResource("/")
    URI base;

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    static void queue(String name, Map<String, Object> settings) {
        given().contentType(ContentType.JSON).body(settings).when().put("/queues/" + name).then().statusCode(200);
    }

    static void enqueue(String queue, int n) {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Map.of("queue", queue, "type", "t"));
        }
        given().contentType(ContentType.JSON).body(Map.of("jobs", jobs)).when().post("/jobs/batch").then().statusCode(200)
                .body("succeeded", equalTo(n));
    }

    static int claim(String queue, int limit) {
        return Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", limit)).getList("jobs").size();
    }

    @Test
    void aClaimGetsNoMoreThanTheWindowAllowsAndDoesNotWait() {
        queue("rl", Map.of("rateLimit", 5, "ratePeriodSeconds", 3600));
        given().when().get("/queues/rl").then().statusCode(200).body("rateLimit", equalTo(5))
                .body("ratePeriodSeconds", equalTo(3600));
        enqueue("rl", 20);
        assertEquals(5, claim("rl", 100));
        long start = System.nanoTime();
        assertEquals(0, claim("rl", 100), "the window is used up");
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 5000, "answered at once, not after waiting");
        // finishing jobs frees no rate (unlike maxWorkers)
        JsonPath leased = given().when().get("/jobs?queue=rl&status=LEASED&limit=10").then().extract().jsonPath();
        assertEquals(5, leased.getList("jobs").size());
        assertEquals(0, claim("rl", 100));
        // a claim over several queues still gets the unlimited ones
        enqueue("free", 3);
        assertEquals(3, Jobs.claim(Map.of("workerId", "w", "queues", List.of("rl", "free"), "limit", 100))
                .getList("jobs").size());
        // and a claim over every queue too
        enqueue("free", 2);
        assertEquals(2, Jobs.claim(Map.of("workerId", "w", "limit", 100)).getList("jobs").size());
    }

    @Test
    void rateLimitZeroClaimsNothingAndRemovingTheLimitFreesTheQueue() {
        queue("rl0", Map.of("rateLimit", 0, "ratePeriodSeconds", 60));
        enqueue("rl0", 3);
        assertEquals(0, claim("rl0", 10));
        queue("rl0", Map.of());
        given().when().get("/queues/rl0").then().body("rateLimit", equalTo(null));
        assertEquals(3, claim("rl0", 10));
    }

    @Test
    void maxWorkersAndRateLimitBothHold() {
        queue("both", Map.of("maxWorkers", 2, "rateLimit", 3, "ratePeriodSeconds", 3600));
        enqueue("both", 10);
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("both"), "limit", 10));
        assertEquals(2, c.getList("jobs").size(), "maxWorkers");
        for (int i = 0; i < 2; i++) {
            given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[" + i + "].leaseId")))
                    .when().post("/jobs/" + c.getString("jobs[" + i + "].id") + "/complete").then().statusCode(200);
        }
        assertEquals(1, claim("both", 10), "then the rate limit: 3 claims in the window");
        assertEquals(0, claim("both", 10));
    }

    /** 8 claimers race over a rate-limited queue: exactly the limit is claimed, whatever the interleaving. */
    @Test
    void concurrentClaimersNeverExceedTheLimit() throws Exception {
        queue("rl-race", Map.of("rateLimit", 25, "ratePeriodSeconds", 3600));
        enqueue("rl-race", 200);
        Http http = new Http(base);
        int claimers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(claimers);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Integer>> got = new ArrayList<>();
            for (int i = 0; i < claimers; i++) {
                String worker = "w" + i;
                got.add(pool.submit(() -> {
                    go.await();
                    int n = 0;
                    for (int k = 0; k < 10; k++) {
                        Http.Reply r = http.post("/claim", Map.of("workerId", worker, "queues", List.of("rl-race"), "limit", 3));
                        assertEquals(200, r.status(), String.valueOf(r.body()));
                        n += r.body().get("jobs").size();
                    }
                    return n;
                }));
            }
            go.countDown();
            int total = 0;
            for (Future<Integer> f : got) {
                total += f.get();
            }
            assertEquals(25, total, "exactly the limit, across all claimers");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(25, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'rl-race' AND status = 1"));
    }

    /** A short window: claims go on window after window, never more than the limit in one. */
    @Test
    void eachWindowHasItsOwnCount() throws Exception {
        queue("rl-win", Map.of("rateLimit", 3, "ratePeriodSeconds", 1));
        enqueue("rl-win", 40);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int claimed = 0;
        while (claimed < 10 && System.nanoTime() < deadline) {
            claimed += claim("rl-win", 10);
        }
        assertTrue(claimed >= 10, "claims continue in the next windows: " + claimed);
        // every claim was made at its transaction's database time (updated_at): per 1 s window, at most 3
        Map<Long, Integer> perWindow = new HashMap<>();
        try (Connection c = TestDb.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT updated_at FROM readpast_job WHERE queue = 'rl-win' AND status = 1")) {
            while (rs.next()) {
                long ms = rs.getTimestamp(1).getTime();
                perWindow.merge(Math.floorDiv(ms, 1000L), 1, Integer::sum);
            }
        }
        assertTrue(perWindow.size() >= 3, "several windows: " + perWindow);
        perWindow.forEach((w, n) -> assertTrue(n <= 3, "window " + w + " had " + n + " claims: " + perWindow));
    }

    @Test
    void ackAndClaimHonoursTheRateLimit() {
        queue("rl-ack", Map.of("rateLimit", 2, "ratePeriodSeconds", 3600));
        enqueue("rl-ack", 5);
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("rl-ack"), "limit", 5));
        assertEquals(2, c.getList("jobs").size());
        List<Map<String, Object>> ack = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            ack.add(Map.of("id", c.getString("jobs[" + i + "].id"), "leaseId", c.getString("jobs[" + i + "].leaseId")));
        }
        given().contentType(ContentType.JSON).body(Map.of("workerId", "w", "queues", List.of("rl-ack"), "limit", 5, "ack", ack))
                .when().post("/claim").then().statusCode(200).body("jobs", hasSize(0));
        assertEquals(2, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = 'rl-ack'"));
    }

    @Test
    void badRateLimitsGetA400AndChangeNothing() {
        queue("rl-bad", Map.of("rateLimit", 1, "ratePeriodSeconds", 1));
        String before = TestDb.snapshot();
        List<Map<String, Object>> bad = List.of(Map.of("rateLimit", 5), Map.of("ratePeriodSeconds", 5),
                Map.of("rateLimit", -1, "ratePeriodSeconds", 5), Map.of("rateLimit", 1_000_001, "ratePeriodSeconds", 5),
                Map.of("rateLimit", 5, "ratePeriodSeconds", 0), Map.of("rateLimit", 5, "ratePeriodSeconds", 86_401),
                Map.of("rateLimit", "5", "ratePeriodSeconds", 5), Map.of("rateLimit", 5, "ratePeriodSeconds", 1.5),
                Map.of("rateLimit", 5, "ratePeriodSeconds", true), Map.of("rateLimit", List.of(5), "ratePeriodSeconds", 5));
        for (Map<String, Object> b : bad) {
            given().contentType(ContentType.JSON).body(b).when().put("/queues/rl-bad").then().statusCode(400)
                    .contentType("application/problem+json").body("detail", notNullValue());
        }
        assertEquals(before, TestDb.snapshot(), "the database is unchanged");
    }
}
