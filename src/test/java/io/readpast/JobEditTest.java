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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Editing a job nobody holds (PATCH /jobs/{id}: priority, runAt, payload) and running a
 * scheduled or retrying one now (POST /jobs/{id}/run-now): the claim sees the change; a LEASED,
 * finished or (run now) WAITING job is refused with 409 and unchanged; bad input is a 400 that
 * changes nothing; an edit racing claims never takes a lease back nor loses the claim's update.
 */
@QuarkusTest
class JobEditTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    private static JsonPath job(String id) {
        return given().get("/jobs/" + id).then().statusCode(200).extract().jsonPath();
    }

    private static io.restassured.response.ValidatableResponse patch(String id, Object body) {
        return given().contentType(ContentType.JSON).body(body).patch("/jobs/" + id).then();
    }

    private static List<Map<String, Object>> claimAll(String queue) {
        return Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", 100)).getList("jobs");
    }

    @Test
    void aScheduledJobIsEditedThenRunNowAndTheClaimSeesTheChanges() {
        String id = Jobs.enqueue(Map.of("queue", "ed", "type", "t", "payload", Map.of("v", 1), "delaySeconds", 3600));
        String runAt = job(id).getString("runAt");
        patch(id, Map.of("priority", 7, "payload", Map.of("v", 2))).statusCode(200)
                .body("status", equalTo("PENDING")).body("priority", equalTo(7)).body("payload.v", equalTo(2))
                .body("runAt", equalTo(runAt));
        assertEquals(0, claimAll("ed").size(), "still scheduled an hour ahead");

        Instant before = Instant.now().minusSeconds(5);
        JsonPath now = given().post("/jobs/" + id + "/run-now").then().statusCode(200)
                .body("status", equalTo("PENDING")).extract().jsonPath();
        Instant due = Instant.parse(now.getString("runAt"));
        assertTrue(due.isAfter(before) && due.isBefore(Instant.now().plusSeconds(5)), "due now: " + due);
        List<Map<String, Object>> claimed = claimAll("ed");
        assertEquals(1, claimed.size());
        assertEquals(7, claimed.get(0).get("priority"));
        assertEquals(Map.of("v", 2), claimed.get(0).get("payload"));
    }

    @Test
    void runAtMovesADueJobOutOfReachAndBackAndPriorityOrdersTheClaim() {
        String a = Jobs.enqueue(Map.of("queue", "ed2", "type", "t", "priority", 1));
        String b = Jobs.enqueue(Map.of("queue", "ed2", "type", "t", "priority", 2));
        patch(a, Map.of("runAt", "2099-01-01T00:00:00Z")).statusCode(200).body("runAt", equalTo("2099-01-01T00:00:00Z"));
        patch(b, Map.of("priority", 0)).statusCode(200);
        String c = Jobs.enqueue(Map.of("queue", "ed2", "type", "t", "priority", 1));
        List<Map<String, Object>> first = Jobs.claim(Map.of("workerId", "w", "queues", List.of("ed2"), "limit", 1))
                .getList("jobs");
        assertEquals(c, first.get(0).get("id"), "priority 1 before the edited 0");
        assertEquals(List.of(b), claimAll("ed2").stream().map(j -> j.get("id")).toList(), "a is an hour... a century ahead");
        patch(a, Map.of("runAt", "2001-01-01T00:00:00Z")).statusCode(200);
        assertEquals(List.of(a), claimAll("ed2").stream().map(j -> j.get("id")).toList(), "due again");
    }

    @Test
    void aRetryingJobRunsNowWithItsAttemptsKept() {
        String id = Jobs.enqueue(Map.of("queue", "ed8", "type", "t", "maxAttempts", 3));
        JsonPath lease = Jobs.claim(Map.of("workerId", "w", "queues", List.of("ed8")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease.getString("jobs[0].leaseId"),
                "error", "smtp timeout", "retryAfterSeconds", 3600)).post("/jobs/" + id + "/fail").then().statusCode(200);
        assertEquals(0, claimAll("ed8").size(), "backing off for an hour");
        given().post("/jobs/" + id + "/run-now").then().statusCode(200)
                .body("status", equalTo("PENDING")).body("attempt", equalTo(1)).body("lastError", equalTo("smtp timeout"));
        List<Map<String, Object>> claimed = claimAll("ed8");
        assertEquals(1, claimed.size());
        assertEquals(2, claimed.get(0).get("attempt"), "the second of its three attempts");
    }

    @Test
    void runAtPastTheJobsExpiryIsRefused() {
        String id = Jobs.enqueue(Map.of("queue", "ed9", "type", "t", "delaySeconds", 60,
                "expiresAt", "2090-01-01T00:00:00Z"));
        String runAt = job(id).getString("runAt");
        patch(id, Map.of("runAt", "2090-01-01T00:00:00Z")).statusCode(400).body("detail", containsString("expiresAt"));
        assertEquals(runAt, job(id).getString("runAt"));
        patch(id, Map.of("runAt", "2089-12-31T00:00:00Z")).statusCode(200).body("runAt", equalTo("2089-12-31T00:00:00Z"));
    }

    @Test
    void aHeldFinishedOrUnknownJobIsRefusedAndUnchanged() {
        String held = Jobs.enqueue(Map.of("queue", "ed3", "type", "t", "priority", 3));
        JsonPath lease = Jobs.claim(Map.of("workerId", "w", "queues", List.of("ed3")));
        patch(held, Map.of("priority", 9)).statusCode(409).contentType("application/problem+json")
                .body("type", equalTo("urn:readpast:problem:state-conflict"))
                .body("detail", containsString("LEASED"));
        given().post("/jobs/" + held + "/run-now").then().statusCode(409);
        assertEquals(3, job(held).getInt("priority"));
        assertEquals("LEASED", job(held).getString("status"));

        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease.getString("jobs[0].leaseId")))
                .post("/jobs/" + held + "/complete").then().statusCode(200);
        patch(held, Map.of("priority", 9)).statusCode(409).body("detail", containsString("SUCCEEDED"));
        given().post("/jobs/" + held + "/run-now").then().statusCode(409);
        assertEquals(3, job(held).getInt("priority"));

        patch("987654321", Map.of("priority", 1)).statusCode(404);
        given().post("/jobs/987654321/run-now").then().statusCode(404);
    }

    @Test
    void aWaitingJobTakesEditsButCannotRunBeforeItsParents() {
        String parent = Jobs.enqueue(Map.of("queue", "ed4", "type", "p", "delaySeconds", 3600));
        String child = Jobs.enqueue(Map.of("queue", "ed4", "type", "c", "dependsOn", Map.of("jobs", List.of(parent))));
        assertEquals("WAITING", job(child).getString("status"));
        patch(child, Map.of("priority", 5, "payload", "new")).statusCode(200)
                .body("status", equalTo("WAITING")).body("priority", equalTo(5)).body("payload", equalTo("new"));
        given().post("/jobs/" + child + "/run-now").then().statusCode(409).body("detail", containsString("WAITING"));
        // the parent runs now, finishes, and the child follows with its edits
        given().post("/jobs/" + parent + "/run-now").then().statusCode(200);
        JsonPath p = Jobs.claim(Map.of("workerId", "w", "queues", List.of("ed4"), "types", List.of("p")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", p.getString("jobs[0].leaseId")))
                .post("/jobs/" + parent + "/complete").then().statusCode(200);
        List<Map<String, Object>> claimed = claimAll("ed4");
        assertEquals(1, claimed.size());
        assertEquals("new", claimed.get(0).get("payload"));
    }

    @Test
    void badInputIsA400ThatChangesNothing() {
        String id = Jobs.enqueue(Map.of("queue", "ed5", "type", "t", "priority", 4, "payload", Map.of("v", 1)));
        String before = TestDb.snapshot();
        patch(id, Map.of()).statusCode(400).body("detail", containsString("priority"));
        patch(id, Map.of("priority", 2147483648L)).statusCode(400).body("detail", containsString("priority"));
        patch(id, Map.of("runAt", "tomorrow")).statusCode(400).body("detail", containsString("runAt"));
        patch(id, Map.of("priority", 1, "color", "red")).statusCode(400).body("detail", containsString("color"));
        given().body("{\"priority\": 1}").patch("/jobs/" + id).then().statusCode(415);
        patch("abc", Map.of("priority", 1)).statusCode(404); // as GET /jobs/abc: job ids are positive integers
        assertEquals(before, TestDb.snapshot(), "nothing was written");
        assertEquals(4, job(id).getInt("priority"));
    }

    @Test
    void aNullPayloadIsAPayload() {
        String id = Jobs.enqueue(Map.of("queue", "ed7", "type", "t", "payload", Map.of("v", 1)));
        java.util.Map<String, Object> body = new java.util.HashMap<>();
        body.put("payload", null);
        patch(id, body).statusCode(200).body("payload", equalTo(null));
        assertEquals(null, claimAll("ed7").get(0).get("payload"));
    }

    @Test
    void editsRacingClaimsNeverTakeALeaseBack() throws Exception {
        int n = 200;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(Jobs.enqueue(Map.of("queue", "ed6", "type", "t")));
        }
        Set<String> claimed = ConcurrentHashMap.newKeySet();
        Map<String, Integer> answers = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        List<Future<?>> tasks = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            String worker = "w" + w;
            tasks.add(pool.submit(() -> {
                long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (claimed.size() < n / 2 && System.nanoTime() < end) {
                    for (Map<String, Object> j : Jobs.claim(Map.of("workerId", worker, "queues", List.of("ed6"),
                            "limit", 5)).<Map<String, Object>>getList("jobs")) {
                        claimed.add((String) j.get("id"));
                    }
                }
                return null;
            }));
        }
        tasks.add(pool.submit(() -> {
            for (String id : ids) {
                int status = given().contentType(ContentType.JSON).body(Map.of("priority", 9)).patch("/jobs/" + id)
                        .then().extract().statusCode();
                answers.put(id, status);
            }
            return null;
        }));
        for (Future<?> t : tasks) {
            t.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        int edited = 0;
        for (String id : ids) {
            JsonPath j = job(id);
            int answer = answers.get(id);
            assertTrue(answer == 200 || answer == 409, id + " answered " + answer);
            if (claimed.contains(id)) {
                assertEquals("LEASED", j.getString("status"), id + ": claimed, and still leased after the edits");
            } else {
                assertEquals("PENDING", j.getString("status"), id);
                assertEquals(200, answer, id + ": never claimed, so the edit took");
                assertEquals(9, j.getInt("priority"), id);
            }
            if (answer == 409) {
                assertTrue(claimed.contains(id), id + ": refused only when a claim had it");
            } else {
                edited++;
            }
        }
        assertTrue(claimed.size() >= n / 2 && edited > 0, "both happened: " + claimed.size() + " claimed, " + edited + " edited");
    }
}
