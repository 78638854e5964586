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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A job's own retry backoff ("retry" at enqueue) in place of its queue's: an explicit list of
 * delays (the last repeats), or base, factor and cap without jitter, each measured on the
 * database clock as the gap between the failure and the job's next due time; a failure's
 * retryAfterSeconds still wins; an expired lease (here a time limit) retries by it too; bad
 * policies are 400s that change nothing.
 */
@QuarkusTest
class JobRetryPolicyTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    /** Claims the job of {@code queue}, fails it (with {@code extra} fields), answers the wait until it is due again. */
    private static Duration failAndWait(String queue, String id, Map<String, Object> extra) {
        given().post("/jobs/" + id + "/run-now").then().statusCode(200);
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", 1));
        assertEquals(id, c.getString("jobs[0].id"));
        Map<String, Object> body = new HashMap<>(extra);
        body.put("leaseId", c.getString("jobs[0].leaseId"));
        body.put("error", "boom");
        JsonPath j = given().contentType(ContentType.JSON).body(body).post("/jobs/" + id + "/fail").then()
                .statusCode(200).extract().jsonPath();
        assertEquals("PENDING", j.getString("status"));
        return Duration.between(Instant.parse(j.getString("updatedAt")), Instant.parse(j.getString("runAt")));
    }

    @Test
    void anExplicitListOfDelaysIsFollowedAndItsLastRepeats() {
        String id = Jobs.enqueue(Map.of("queue", "rp1", "type", "t", "maxAttempts", 10,
                "retry", Map.of("delaysSeconds", List.of(100, 200.5))));
        assertEquals(Map.of("delaysSeconds", List.of(100, 200.5f)), given().get("/jobs/" + id).then().extract()
                .jsonPath().getMap("retry"));
        assertEquals(Duration.ofSeconds(100), failAndWait("rp1", id, Map.of()));
        assertEquals(Duration.ofMillis(200_500), failAndWait("rp1", id, Map.of()));
        assertEquals(Duration.ofMillis(200_500), failAndWait("rp1", id, Map.of()), "the last delay repeats");
        assertEquals(Duration.ofSeconds(7), failAndWait("rp1", id, Map.of("retryAfterSeconds", 7)),
                "the failure's own retryAfterSeconds wins");
    }

    @Test
    void baseFactorAndCapWithoutJitterGiveExactDelays() {
        String id = Jobs.enqueue(Map.of("queue", "rp2", "type", "t", "maxAttempts", 10,
                "retry", Map.of("baseSeconds", 10, "factor", 3, "capSeconds", 50, "jitter", false)));
        assertEquals(Duration.ofSeconds(10), failAndWait("rp2", id, Map.of()));
        assertEquals(Duration.ofSeconds(30), failAndWait("rp2", id, Map.of()));
        assertEquals(Duration.ofSeconds(50), failAndWait("rp2", id, Map.of()), "90 s, capped at 50");
        String jittered = Jobs.enqueue(Map.of("queue", "rp3", "type", "t", "maxAttempts", 10,
                "retry", Map.of("baseSeconds", 100)));
        Duration d = failAndWait("rp3", jittered, Map.of());
        assertTrue(d.compareTo(Duration.ofSeconds(50)) >= 0 && d.compareTo(Duration.ofSeconds(100)) <= 0,
                "equal jitter by default: 50-100 s, got " + d);
    }

    @Test
    void anExpiredLeaseRetriesByTheJobsPolicy() {
        String id = Jobs.enqueue(Map.of("queue", "rp4", "type", "t", "timeoutSeconds", 1, "maxAttempts", 3,
                "retry", Map.of("delaysSeconds", List.of(300))));
        Jobs.claim(Map.of("workerId", "w", "queues", List.of("rp4"), "leaseSeconds", 600));
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonPath j = given().get("/jobs/" + id).then().extract().jsonPath();
        while (!"PENDING".equals(j.getString("status")) && System.nanoTime() < end) {
            Thread.onSpinWait();
            j = given().get("/jobs/" + id).then().extract().jsonPath();
        }
        assertEquals("PENDING", j.getString("status"));
        assertEquals(Duration.ofSeconds(300),
                Duration.between(Instant.parse(j.getString("updatedAt")), Instant.parse(j.getString("runAt"))));
    }

    /**
     * A DEAD job keeps its time limit and retry backoff (the dead-letter table holds them), GET
     * shows them, and a requeue runs under them again: its next failure waits the policy's delay.
     * A cancelled one keeps them in the archive the same way.
     */
    @Test
    void aFinishedJobKeepsItsTimeLimitAndBackoffAndARequeueRunsUnderThemAgain() {
        Map<String, Object> limits = Map.of("delaysSeconds", List.of(100));
        String id = Jobs.enqueue(Map.of("queue", "rp6", "type", "t", "maxAttempts", 2, "timeoutSeconds", 30,
                "retry", limits));
        assertEquals(Duration.ofSeconds(100), failAndWait("rp6", id, Map.of()));
        given().post("/jobs/" + id + "/run-now").then().statusCode(200);
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("rp6"), "limit", 1));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", "boom"))
                .post("/jobs/" + id + "/fail").then().statusCode(200).body("status", org.hamcrest.Matchers.equalTo("DEAD"));
        JsonPath dead = given().get("/jobs/" + id).then().statusCode(200).extract().jsonPath();
        assertEquals("DEAD", dead.getString("status"));
        assertEquals(30, dead.getInt("timeoutSeconds"));
        assertEquals(Map.of("delaysSeconds", List.of(100)), dead.getMap("retry"));
        assertEquals(1, given().get("/jobs?queue=rp6&status=DEAD").then().statusCode(200).extract().jsonPath()
                .getList("jobs").size());
        assertEquals(30, given().get("/jobs?queue=rp6&status=DEAD").then().extract().jsonPath()
                .getInt("jobs[0].timeoutSeconds"), "the search shows it too");

        JsonPath requeued = given().contentType(ContentType.JSON).body("{}").post("/jobs/" + id + "/requeue").then()
                .statusCode(200).extract().jsonPath();
        assertEquals("PENDING", requeued.getString("status"));
        assertEquals(30, requeued.getInt("timeoutSeconds"));
        assertEquals(Map.of("delaysSeconds", List.of(100)), requeued.getMap("retry"));
        assertEquals(Duration.ofSeconds(100), failAndWait("rp6", id, Map.of()), "the requeued job retries by its policy");

        String other = Jobs.enqueue(Map.of("queue", "rp6", "type", "t", "runAt", "2099-01-01T00:00:00Z",
                "timeoutSeconds", 45, "retry", limits));
        given().post("/jobs/" + other + "/cancel").then().statusCode(200);
        JsonPath cancelled = given().get("/jobs/" + other).then().statusCode(200).extract().jsonPath();
        assertEquals("CANCELLED", cancelled.getString("status"));
        assertEquals(45, cancelled.getInt("timeoutSeconds"));
        assertEquals(Map.of("delaysSeconds", List.of(100)), cancelled.getMap("retry"));
    }

    @Test
    void badPoliciesAre400sThatChangeNothing() {
        String before = TestDb.snapshot();
        Map<Object, String> bad = new java.util.LinkedHashMap<>();
        bad.put(Map.of("delaysSeconds", List.of(1), "baseSeconds", 1), "not both");
        bad.put(Map.of("delaysSeconds", List.of()), "delaysSeconds");
        bad.put(Map.of("delaysSeconds", List.of(-1)), "delaysSeconds");
        bad.put(Map.of("factor", 2), "baseSeconds");
        bad.put(Map.of("baseSeconds", 10, "factor", 0.5), "factor");
        bad.put(Map.of("baseSeconds", 100, "capSeconds", 10), "capSeconds");
        bad.put(Map.of("baseSeconds", 100000), "baseSeconds");
        bad.put(Map.of("baseSeconds", 1, "colour", "red"), "colour");
        bad.put("fast", "retry");
        for (var e : bad.entrySet()) {
            given().contentType(ContentType.JSON).body(Map.of("queue", "rp5", "type", "t", "retry", e.getKey()))
                    .post("/jobs").then().statusCode(400).body("detail", containsString(e.getValue()));
        }
        assertEquals(before, TestDb.snapshot(), "nothing was written");
    }
}
