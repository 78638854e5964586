package io.readpast;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.Jobs;
import io.readpast.testsupport.TestDb;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Debounce (debounceKey with debounceSeconds on POST /jobs): the first enqueue opens a window and
 * creates the job, due at its end; later ones inside the window replace its payload and priority
 * (200, same job); the job runs once with the last payload; a claimed job or an ended window
 * makes the next enqueue a new job; racing enqueues make one job per window; bad input is a 400
 * that creates nothing.
 */
@QuarkusTest
class JobDebounceTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    private static Response enqueue(Map<String, Object> body) {
        return given().contentType(ContentType.JSON).body(body).post("/jobs");
    }

    private static Map<String, Object> debounced(String queue, String key, long seconds, Object payload) {
        Map<String, Object> b = new HashMap<>();
        b.put("queue", queue);
        b.put("type", "reindex");
        b.put("payload", payload);
        b.put("debounceKey", key);
        b.put("debounceSeconds", seconds);
        return b;
    }

    private static long jobsIn(String queue) {
        return TestDb.count("SELECT COUNT(*) FROM readpast_job WHERE queue = ?", queue)
                + TestDb.count("SELECT COUNT(*) FROM readpast_job_archive WHERE queue = ?", queue)
                + TestDb.count("SELECT COUNT(*) FROM readpast_job_dead WHERE queue = ?", queue);
    }

    @Test
    void theLastEnqueueInTheWindowWinsAndTheJobRunsOnceAtItsEnd() {
        Instant before = TestDb.dbNow();
        Response first = enqueue(debounced("db1", "customer-42", 3600, Map.of("n", 1)));
        first.then().statusCode(201).body("status", equalTo("PENDING"));
        String id = first.jsonPath().getString("id");
        Instant due = Instant.parse(first.jsonPath().getString("runAt"));
        assertTrue(!due.isBefore(before.plusSeconds(3599)) && due.isBefore(before.plusSeconds(3660)),
                "due when the hour's window ends: " + due);
        for (int n = 2; n <= 4; n++) {
            Map<String, Object> again = debounced("db1", "customer-42", 3600, Map.of("n", n));
            again.put("priority", n);
            enqueue(again).then().statusCode(200).header("Location", "/jobs/" + id)
                    .body("id", equalTo(id)).body("payload.n", equalTo(n)).body("priority", equalTo(n))
                    .body("runAt", equalTo(first.jsonPath().getString("runAt")));
        }
        assertEquals(1, jobsIn("db1"), "one job for the window");
        assertEquals(0, Jobs.claim(Map.of("workerId", "w", "queues", List.of("db1"))).getList("jobs").size(),
                "not due before its window ends");

        given().post("/jobs/" + id + "/run-now").then().statusCode(200);
        List<Map<String, Object>> claimed = Jobs.claim(Map.of("workerId", "w", "queues", List.of("db1"), "limit", 10))
                .getList("jobs");
        assertEquals(1, claimed.size());
        assertEquals(Map.of("n", 4), claimed.get(0).get("payload"), "the last enqueue's payload");

        // the window's job is held by a worker: the next enqueue opens a new window
        Response next = enqueue(debounced("db1", "customer-42", 3600, Map.of("n", 5)));
        next.then().statusCode(201);
        assertNotEquals(id, next.jsonPath().getString("id"));
        assertEquals(Map.of("n", 4), given().get("/jobs/" + id).jsonPath().getMap("payload"), "the held job is unchanged");
        assertEquals(2, jobsIn("db1"));
    }

    @Test
    void anEndedWindowRunsItsJobAndTheNextEnqueueOpensANewOne() {
        String id = enqueue(debounced("db2", "k", 1, "a")).then().statusCode(201).extract().jsonPath().getString("id");
        enqueue(debounced("db2", "k", 1, "b")).then().statusCode(200).body("id", equalTo(id));
        // a long poll wakes when the window ends
        JsonPath got = Jobs.claim(Map.of("workerId", "w", "queues", List.of("db2"), "waitSeconds", 20));
        assertEquals(List.of(id), got.getList("jobs.id"));
        assertEquals("b", got.getString("jobs[0].payload"));
        String second = enqueue(debounced("db2", "k", 1, "c")).then().statusCode(201).extract().jsonPath().getString("id");
        assertNotEquals(id, second);
    }

    @Test
    void keysAreOwnedByTheirQueueAndDoNotMeetOtherKeys() {
        String a = enqueue(debounced("db3", "k", 600, 1)).then().statusCode(201).extract().jsonPath().getString("id");
        String b = enqueue(debounced("db4", "k", 600, 1)).then().statusCode(201).extract().jsonPath().getString("id");
        String c = enqueue(debounced("db3", "k2", 600, 1)).then().statusCode(201).extract().jsonPath().getString("id");
        assertEquals(3, Set.of(a, b, c).size());
        enqueue(debounced("db3", "k", 600, 2)).then().statusCode(200).body("id", equalTo(a));
        // a plain enqueue in the same queue is a job of its own
        Jobs.enqueue(Map.of("queue", "db3", "type", "reindex", "payload", 3));
        assertEquals(3, jobsIn("db3"));
    }

    @Test
    void racingEnqueuesMakeOneJobPerWindowAndTheLastCommittedPayloadIsKept() throws Exception {
        int threads = 8;
        int each = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        Set<String> ids = ConcurrentHashMap.newKeySet();
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < each; i++) {
                    Response r = enqueue(debounced("db5", "hot", 600, Map.of("t", thread, "i", i)));
                    statuses.merge(r.statusCode(), 1, Integer::sum);
                    ids.add(r.jsonPath().getString("id"));
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertEquals(Map.of(201, 1, 200, threads * each - 1), statuses, "one created, every other one merged");
        assertEquals(1, ids.size());
        assertEquals(1, jobsIn("db5"));
        Map<String, Object> payload = given().get("/jobs/" + ids.iterator().next()).jsonPath().getMap("payload");
        assertEquals(each - 1, payload.get("i"), "some thread's last enqueue: " + payload);
    }

    @Test
    void badDebouncesAreRefusedAndCreateNothing() {
        List<Map<String, Object>> bad = new ArrayList<>();
        Map<String, Object> noSeconds = debounced("db6", "k", 1, 1);
        noSeconds.remove("debounceSeconds");
        bad.add(noSeconds);
        Map<String, Object> noKey = debounced("db6", "k", 1, 1);
        noKey.remove("debounceKey");
        bad.add(noKey);
        bad.add(debounced("db6", "k", 0, 1));
        bad.add(debounced("db6", "k", 86_401, 1));
        bad.add(debounced("db6", " ", 10, 1));
        bad.add(debounced("db6", "x".repeat(201), 10, 1));
        for (String other : List.of("idempotencyKey", "groupKey", "runAt", "delaySeconds", "uniqueFor")) {
            Map<String, Object> b = debounced("db6", "k", 10, 1);
            b.put(other, switch (other) {
                case "runAt" -> "2099-01-01T00:00:00Z";
                case "delaySeconds", "uniqueFor" -> 60;
                default -> "g";
            });
            bad.add(b);
        }
        for (Map<String, Object> b : bad) {
            enqueue(b).then().statusCode(400).contentType("application/problem+json")
                    .body("detail", containsString("debounce"));
        }
        given().contentType(ContentType.JSON).body(Map.of("jobs", List.of(debounced("db6", "k", 10, 1))))
                .post("/jobs/batch").then().statusCode(200).body("results[0].status", equalTo(400))
                .body("results[0].error.detail", containsString("not in a batch"));
        assertEquals(0, jobsIn("db6"));
    }
}
