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
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Per-job time limits (timeoutSeconds): no lease, from the claim or a heartbeat (single or
 * batch), runs past claim + timeoutSeconds; a worker that keeps heartbeating still loses the job
 * then, its attempt fails with "timed out", the next claim gets a fresh deadline, and a late
 * heartbeat is a 409. Jobs without a limit keep their leases as before; bad limits are 400s.
 */
@QuarkusTest
class JobTimeoutTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    private static JsonPath job(String id) {
        return given().get("/jobs/" + id).then().statusCode(200).extract().jsonPath();
    }

    private static JsonPath heartbeat(String id, String leaseId, int status) {
        return given().contentType(ContentType.JSON).body(Map.of("leaseId", leaseId, "leaseSeconds", 600))
                .post("/jobs/" + id + "/heartbeat").then().statusCode(status).extract().jsonPath();
    }

    @Test
    void aJobThatHeartbeatsForeverIsStoppedAtItsDeadlineAndRetried() throws Exception {
        String id = Jobs.enqueue(Map.of("queue", "to1", "type", "t", "timeoutSeconds", 2, "maxAttempts", 3));
        assertEquals(2, job(id).getInt("timeoutSeconds"));
        assertNull(job(id).get("deadlineAt"), "no deadline before a claim");
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("to1"), "leaseSeconds", 600));
        String lease = c.getString("jobs[0].leaseId");
        Instant leaseEnd = Instant.parse(c.getString("jobs[0].leaseExpiresAt"));
        Instant deadline = Instant.parse(job(id).getString("deadlineAt"));
        assertEquals(leaseEnd, deadline, "the claim's lease ends at the deadline, not 600 s on");
        Instant started = Instant.parse(job(id).getString("updatedAt"));
        assertEquals(Duration.ofSeconds(2), Duration.between(started, deadline), "claim + timeoutSeconds");

        // heartbeats asking for 600 s more get no further than the deadline, single and batch
        assertEquals(deadline, Instant.parse(heartbeat(id, lease, 200).getString("leaseExpiresAt")));
        JsonPath many = given().contentType(ContentType.JSON)
                .body(Map.of("items", List.of(Map.of("id", id, "leaseId", lease, "leaseSeconds", 600))))
                .post("/jobs/heartbeat").then().statusCode(200).extract().jsonPath();
        assertEquals(deadline, Instant.parse(many.getString("results[0].leaseExpiresAt")));

        // the worker keeps heartbeating; past the deadline the job is taken from it
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int status = 200;
        while (status == 200 && System.nanoTime() < end) {
            status = given().contentType(ContentType.JSON).body(Map.of("leaseId", lease, "leaseSeconds", 600))
                    .post("/jobs/" + id + "/heartbeat").then().extract().statusCode();
        }
        assertEquals(409, status, "a heartbeat past the deadline is refused like a lost lease");
        while (!"PENDING".equals(job(id).getString("status")) && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        JsonPath after = job(id);
        assertEquals("PENDING", after.getString("status"), "the attempt failed and the job is retried");
        assertTrue(after.getString("lastError").startsWith("timed out after 2 s"), after.getString("lastError"));
        assertNull(after.get("deadlineAt"));

        given().post("/jobs/" + id + "/run-now").then().statusCode(200);
        JsonPath again = Jobs.claim(Map.of("workerId", "w2", "queues", List.of("to1"), "leaseSeconds", 600));
        assertEquals(2, again.getInt("jobs[0].attempt"));
        Instant second = Instant.parse(job(id).getString("deadlineAt"));
        assertTrue(second.isAfter(deadline), "a fresh deadline for the new attempt: " + second);
    }

    @Test
    void aLimitLongerThanTheLeaseLeavesTheLeaseAloneAndNoLimitIsNoDeadline() {
        String limited = Jobs.enqueue(Map.of("queue", "to2", "type", "t", "timeoutSeconds", 3600));
        String free = Jobs.enqueue(Map.of("queue", "to2", "type", "t"));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("to2"), "leaseSeconds", 30, "limit", 2));
        for (int i = 0; i < 2; i++) {
            String id = c.getString("jobs[" + i + "].id");
            Instant leaseEnd = Instant.parse(c.getString("jobs[" + i + "].leaseExpiresAt"));
            Instant claimed = Instant.parse(job(id).getString("updatedAt"));
            assertEquals(Duration.ofSeconds(30), Duration.between(claimed, leaseEnd), id + ": the 30 s lease");
            if (id.equals(limited)) {
                assertEquals(claimed.plusSeconds(3600), Instant.parse(job(id).getString("deadlineAt")));
            } else {
                assertEquals(free, id);
                assertNull(job(id).get("deadlineAt"));
                assertNull(job(id).get("timeoutSeconds"));
            }
        }
    }

    @Test
    void theBatchEnqueueTakesTheLimitAndBadLimitsAre400s() {
        given().contentType(ContentType.JSON).body(Map.of("jobs", List.of(
                Map.of("queue", "to3", "type", "t", "timeoutSeconds", 60),
                Map.of("queue", "to3", "type", "t", "timeoutSeconds", 0))))
                .post("/jobs/batch").then().statusCode(200)
                .body("results[0].status", equalTo(201)).body("results[1].status", equalTo(400));
        assertEquals(List.of(60), given().get("/jobs?queue=to3").then().extract().jsonPath().getList("jobs.timeoutSeconds"));
        String before = TestDb.snapshot();
        for (Object bad : List.of(0, -1, 2_592_001, "ten")) {
            given().contentType(ContentType.JSON).body(Map.of("queue", "to3", "type", "t", "timeoutSeconds", bad))
                    .post("/jobs").then().statusCode(400).body("detail", containsString("timeoutSeconds"));
        }
        assertEquals(before, TestDb.snapshot(), "nothing was written");
    }
}
