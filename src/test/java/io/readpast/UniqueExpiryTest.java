package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Jobs;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
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
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** uniqueFor (unique jobs over a time window) and expiresAt (never start after). */
@QuarkusTest
class UniqueExpiryTest {


    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    static Response post(Map<String, Object> body) {
        return given().contentType(ContentType.JSON).body(body).when().post("/jobs");
    }

    static Map<String, Object> job(String queue, Object payload, Object... more) {
        Map<String, Object> m = new HashMap<>();
        m.put("queue", queue);
        m.put("type", "t");
        m.put("payload", payload);
        for (int i = 0; i < more.length; i += 2) {
            m.put((String) more[i], more[i + 1]);
        }
        return m;
    }

    static void complete(String queue) {
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue)));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .when().post("/jobs/" + c.getString("jobs[0].id") + "/complete").then().statusCode(200);
    }

    @Test
    void theSameJobWithinTheWindowIsTheFirstOneWhateverItsStatus() {
        String first = post(job("uq", Map.of("a", 1, "b", List.of(1, 2)), "uniqueFor", 600)).then().statusCode(201)
                .extract().path("id");
        // same queue, type and payload (members in another order): the first job
        String again = "{\"queue\":\"uq\",\"type\":\"t\",\"uniqueFor\":600,\"payload\":{\"b\":[1,2],\"a\":1}}";
        given().contentType(ContentType.JSON).body(again).when().post("/jobs").then().statusCode(200)
                .body("id", equalTo(first)).header("Location", equalTo("/jobs/" + first));
        // another payload, type or queue is another job
        assertNotEquals(first, post(job("uq", Map.of("a", 2), "uniqueFor", 600)).then().statusCode(201).extract().path("id"));
        assertNotEquals(first, post(job("uq2", Map.of("a", 1, "b", List.of(1, 2)), "uniqueFor", 600)).then().statusCode(201)
                .extract().path("id"));
        // without uniqueFor nothing is deduplicated
        post(job("uq", Map.of("a", 1, "b", List.of(1, 2)))).then().statusCode(201);
        // finished, still within the window: still the answer
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("uq"), "limit", 10));
        for (int i = 0; i < c.getList("jobs").size(); i++) {
            given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[" + i + "].leaseId")))
                    .when().post("/jobs/" + c.getString("jobs[" + i + "].id") + "/complete").then().statusCode(200);
        }
        given().when().get("/jobs/" + first).then().statusCode(200).body("status", equalTo("SUCCEEDED"));
        given().contentType(ContentType.JSON).body(again).when().post("/jobs").then().statusCode(200)
                .body("id", equalTo(first)).body("status", equalTo("SUCCEEDED"));
        assertEquals(4, TestDb.count("SELECT count(*) FROM readpast_job")
                + TestDb.count("SELECT count(*) FROM readpast_job_archive"));
    }

    @Test
    void withAnIdempotencyKeyTheKeyIsUniqueForTheWindowEvenAfterTheJobFinished() {
        String first = post(job("uk", Map.of("n", 1), "idempotencyKey", "order-7", "uniqueFor", 600))
                .then().statusCode(201).extract().path("id");
        complete("uk");
        // without uniqueFor, a finished job frees its key (as before); with it, the window holds
        post(job("uk", Map.of("n", 2), "idempotencyKey", "order-7", "uniqueFor", 600)).then().statusCode(200)
                .body("id", equalTo(first)).body("status", equalTo("SUCCEEDED"));
        // keys are global: the same key in another queue is a conflict, as for idempotency keys
        post(job("other", Map.of("n", 1), "idempotencyKey", "order-7", "uniqueFor", 600)).then().statusCode(409)
                .contentType("application/problem+json");
    }

    @Test
    void theKeyIsFreeOnceTheWindowRunsOut() {
        String first = post(job("short", "x", "uniqueFor", 1)).then().statusCode(201).extract().path("id");
        post(job("short", "x", "uniqueFor", 1)).then().statusCode(200).body("id", equalTo(first));
        String[] second = new String[1];
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250)).until(() -> {
            Response r = post(job("short", "x", "uniqueFor", 1));
            if (r.statusCode() == 201) {
                second[0] = r.path("id");
                return true;
            }
            assertEquals(200, r.statusCode());
            return false;
        });
        assertNotEquals(first, second[0]);
        assertEquals(2, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'short'"));
    }

    @Test
    void aDeletedHolderFreesTheKey() {
        String first = post(job("del", "x", "uniqueFor", 600)).then().statusCode(201).extract().path("id");
        given().when().post("/jobs/" + first + "/cancel").then().statusCode(200);
        given().when().delete("/jobs/" + first).then().statusCode(204);
        String second = post(job("del", "x", "uniqueFor", 600)).then().statusCode(201).extract().path("id");
        assertNotEquals(first, second);
        post(job("del", "x", "uniqueFor", 600)).then().statusCode(200).body("id", equalTo(second));
    }

    @Test
    void concurrentUniqueEnqueuesMakeExactlyOneJob() throws Exception {
        int n = 16;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Response>> answers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Callable<Response> call = () -> {
                    go.await();
                    return post(job("race-u", Map.of("same", true), "uniqueFor", 600));
                };
                answers.add(pool.submit(call));
            }
            go.countDown();
            int created = 0;
            Set<String> ids = new HashSet<>();
            for (Future<Response> f : answers) {
                Response r = f.get();
                if (r.statusCode() == 201) {
                    created++;
                } else {
                    assertEquals(200, r.statusCode(), r.asString());
                }
                ids.add(r.path("id"));
            }
            assertEquals(1, created);
            assertEquals(1, ids.size());
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'race-u'"));
    }

    @Test
    void batchItemsSharingAUniqueKeyMakeOneJob() {
        List<Map<String, Object>> jobs = List.of(job("ub", "a", "uniqueFor", 600), job("ub", "a", "uniqueFor", 600),
                job("ub", "b"), job("ub", "a"));
        JsonPath r = given().contentType(ContentType.JSON).body(Map.of("jobs", jobs)).when().post("/jobs/batch")
                .then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(201, 200, 201, 201), r.getList("results.status"));
        assertEquals(r.getString("results[0].id"), r.getString("results[1].id"));
        post(job("ub", "a", "uniqueFor", 600)).then().statusCode(200).body("id", equalTo(r.getString("results[0].id")));
    }

    @Test
    void anExpiredJobIsNeverStartedAndBecomesDead() {
        // already past on the database's clock: refused (it would be DEAD before any worker saw
        // it), and nothing is written
        String before = TestDb.snapshot();
        post(job("exp", "p", "expiresAt", TestDb.dbNow().minusSeconds(5).toString())).then().statusCode(400)
                .body("detail", containsString("already past"));
        assertEquals(before, TestDb.snapshot());

        // expiring soon, in a paused queue: it expires waiting
        given().contentType(ContentType.JSON).body(Map.of("paused", true)).when().put("/queues/exp2").then().statusCode(200);
        String soon = post(job("exp2", "s", "expiresAt", TestDb.dbNow().plusSeconds(2).toString())).then().statusCode(201)
                .extract().path("id");
        await().atMost(Duration.ofSeconds(20)).until(() -> "DEAD".equals(given().when().get("/jobs/" + soon)
                .then().statusCode(200).extract().path("status")));
        given().when().get("/jobs/" + soon).then().body("lastError", equalTo("expired: not started before its expiresAt"))
                .body("attempt", equalTo(0)).body("expiresAt", nullValue());
        given().when().get("/dead-letters?queue=exp2").then().statusCode(200).body("jobs", hasSize(1));
        given().when().post("/queues/exp2/resume").then().statusCode(200);
        assertEquals(0, Jobs.claim(Map.of("workerId", "w", "queues", List.of("exp2"))).getList("jobs").size());

        // claimed before its expiresAt: it runs on, and can be completed after it
        String started = post(job("exp3", "r", "expiresAt", TestDb.dbNow().plusSeconds(2).toString())).then().statusCode(201)
                .extract().path("id");
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("exp3")));
        assertEquals(started, c.getString("jobs[0].id"));
        Instant expiry = Instant.parse(c.getString("jobs[0].expiresAt"));
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDb.dbNow().isAfter(expiry.plusSeconds(1)));
        given().when().get("/jobs/" + started).then().body("status", equalTo("LEASED"));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .when().post("/jobs/" + started + "/complete").then().statusCode(200).body("status", equalTo("SUCCEEDED"));

        // a requeued expired job starts afresh, without the expiry
        given().contentType(ContentType.JSON).body("{}").when().post("/jobs/" + soon + "/requeue").then().statusCode(200)
                .body("status", equalTo("PENDING")).body("expiresAt", nullValue());
        assertEquals(soon, Jobs.claim(Map.of("workerId", "w", "queues", List.of("exp2"))).getString("jobs[0].id"));
    }

    @Test
    void anExpiredJobReportsItsWebhook() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver()) {
            String id = post(job("exp-wh", "x", "expiresAt", TestDb.dbNow().plusMillis(1500).toString(),
                    "webhookUrl", receiver.url("/expired"))).then().statusCode(201).extract().path("id");
            await().atMost(Duration.ofSeconds(20)).until(() -> receiver.received().size() == 1);
            assertEquals("job.dead", receiver.received().get(0).header("Readpast-Event"));
            assertEquals(id, receiver.received().get(0).json().path("job").path("id").asText());
        }
    }

    @Test
    void badUniqueForAndExpiresAtGetA400AndChangeNothing() {
        String before = TestDb.snapshot();
        List<Object[]> bad = List.of(
                new Object[] {"uniqueFor", 0}, new Object[] {"uniqueFor", -1}, new Object[] {"uniqueFor", 31622401},
                new Object[] {"uniqueFor", "1h"}, new Object[] {"uniqueFor", 1.5}, new Object[] {"uniqueFor", true},
                new Object[] {"expiresAt", "tomorrow"}, new Object[] {"expiresAt", 5},
                new Object[] {"expiresAt", "2030-13-01T00:00:00Z"}, new Object[] {"expiresAt", "2030-01-01T00:00:00"},
                new Object[] {"expiresAt", "+300000-01-01T00:00:00Z"}, new Object[] {"expiresAt", "0001-01-01T00:00:00Z"},
                new Object[] {"expiresAt", ""});
        for (Object[] f : bad) {
            post(job("bad-u", "x", f[0], f[1])).then().statusCode(400).contentType("application/problem+json")
                    .body("detail", notNullValue());
            given().contentType(ContentType.JSON).body(Map.of("jobs", List.of(job("bad-u", "x", f[0], f[1]))))
                    .when().post("/jobs/batch").then().statusCode(200).body("results[0].status", equalTo(400));
        }
        post(job("bad-u", "x", "runAt", "2030-01-01T00:00:00Z", "expiresAt", "2030-01-01T00:00:00Z")).then().statusCode(400)
                .body("detail", equalTo("'expiresAt' must be after 'runAt': the job could never start."));
        assertEquals(before, TestDb.snapshot(), "the database is unchanged");
    }
}
