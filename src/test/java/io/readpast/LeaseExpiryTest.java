package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Jobs;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** Lease expiry returns jobs through the failure path; the old lease id is fenced off. */
@QuarkusTest
class LeaseExpiryTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    @Test
    void expiredLeaseIsReturnedAndTheStaleWorkerIsFenced() {
        String id = Jobs.enqueue(Map.of("queue", "exp", "type", "t", "maxAttempts", 5));
        String stale = Jobs.claim(Map.of("workerId", "slow", "leaseSeconds", 1)).getString("jobs[0].leaseId");
        given().contentType(ContentType.JSON).body(Map.of("leaseId", stale))
                .when().post("/jobs/" + id + "/heartbeat").then().statusCode(200);

        // The sweeper (every second, database clock) returns the job to PENDING as a failure.
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                given().when().get("/jobs/" + id).then()
                        .body("status", equalTo("PENDING"))
                        .body("lastError", startsWith("lease expired")));

        // After the retry backoff another worker gets it, with a new lease.
        JsonPath[] second = new JsonPath[1];
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).until(() -> {
            second[0] = Jobs.claim(Map.of("workerId", "fast", "queues", List.of("exp"), "leaseSeconds", 60));
            return !second[0].getList("jobs").isEmpty();
        });
        assertEquals(id, second[0].getString("jobs[0].id"));
        assertEquals(2, second[0].getInt("jobs[0].attempt"), "the expiry spent an attempt");
        String fresh = second[0].getString("jobs[0].leaseId");
        assertNotEquals(stale, fresh);

        // The stale worker can no longer touch the job.
        for (String action : List.of("heartbeat", "complete", "fail", "release")) {
            given().contentType(ContentType.JSON).body(Map.of("leaseId", stale))
                    .when().post("/jobs/" + id + "/" + action)
                    .then().statusCode(409).contentType("application/problem+json");
        }
        given().when().get("/jobs/" + id).then().body("status", equalTo("LEASED")).body("workerId", equalTo("fast"));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", fresh))
                .when().post("/jobs/" + id + "/complete").then().statusCode(200).body("status", equalTo("SUCCEEDED"));
    }

    /**
     * A lease ends at its leaseExpiresAt: every call under it is refused from then on, also in the
     * moments before the sweeper returns the job to the queue (docs/api.md). The lease is made to
     * have run out a second ago in the database; a try in which the sweeper came first (the job is
     * no longer LEASED under that lease when the calls are done) proves nothing and is repeated.
     */
    @Test
    void aLeaseThatRanOutIsLostAlsoBeforeTheSweeperReturnsTheJob() {
        for (int attempt = 1; ; attempt++) {
            String queue = "ran-out-" + attempt;
            String id = Jobs.enqueue(Map.of("queue", queue, "type", "t"));
            String lease = Jobs.claim(Map.of("workerId", "late", "queues", List.of(queue), "leaseSeconds", 300))
                    .getString("jobs[0].leaseId");
            assertEquals(1, TestDb.update("UPDATE readpast_job SET lease_expires_at = ? WHERE id = ?",
                    TestDb.time(TestDb.dbNow().minusSeconds(1)), Long.parseLong(id)));
            for (String action : List.of("heartbeat", "complete", "fail", "release")) {
                given().contentType(ContentType.JSON).body(Map.of("leaseId", lease))
                        .when().post("/jobs/" + id + "/" + action)
                        .then().statusCode(409).contentType("application/problem+json");
            }
            for (String batch : List.of("heartbeat", "complete")) {
                given().contentType(ContentType.JSON).body(Map.of("items", List.of(Map.of("id", id, "leaseId", lease))))
                        .when().post("/jobs/" + batch)
                        .then().statusCode(200).body("results[0].status", equalTo(409));
            }
            JsonPath job = given().when().get("/jobs/" + id).then().statusCode(200).extract().jsonPath();
            if ("LEASED".equals(job.getString("status")) && "late".equals(job.getString("workerId"))) {
                break; // the calls met the expired lease itself, not a swept job
            }
            if (attempt == 5) {
                throw new AssertionError("the sweeper came first in 5 tries: " + job.prettify());
            }
        }
    }

    @Test
    void expiryWithNoAttemptsLeftKillsTheJob() {
        String id = Jobs.enqueue(Map.of("queue", "exp1", "type", "t", "maxAttempts", 1));
        Jobs.claim(Map.of("workerId", "slow", "leaseSeconds", 1));
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                given().when().get("/jobs/" + id).then().body("status", equalTo("DEAD")));
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job_dead WHERE id = ?", Long.parseLong(id)));
    }

    @Test
    void heartbeatsKeepALeaseAliveBeyondItsFirstLength() {
        String id = Jobs.enqueue(Map.of("queue", "hb", "type", "t"));
        JsonPath claimed = Jobs.claim(Map.of("workerId", "w", "leaseSeconds", 1));
        String lease = claimed.getString("jobs[0].leaseId");
        java.time.Instant firstExpiry = java.time.Instant.parse(claimed.getString("jobs[0].leaseExpiresAt"));
        // Heartbeat without pause (1 s leases) until well past the first lease's expiry and
        // several sweeper passes: the job must stay ours throughout.
        java.time.Instant lastExpiry = firstExpiry;
        int beats = 0;
        while (lastExpiry.isBefore(firstExpiry.plusSeconds(3))) {
            lastExpiry = java.time.Instant.parse(given().contentType(ContentType.JSON)
                    .body(Map.of("leaseId", lease, "leaseSeconds", 1))
                    .when().post("/jobs/" + id + "/heartbeat").then().statusCode(200)
                    .body("status", equalTo("PROCESSING")).extract().path("leaseExpiresAt"));
            beats++;
        }
        org.junit.jupiter.api.Assertions.assertTrue(beats > 1);
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease))
                .when().post("/jobs/" + id + "/complete").then().statusCode(200);
    }
}
