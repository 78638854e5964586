package io.readpast;

import io.readpast.testsupport.TestDb;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the dashboard needs from the API: per-attempt errors on GET /jobs/{id} (kept by every
 * failure path, bounded, carried across tables), throughput per minute, /me, and the static
 * dashboard itself with its security headers.
 */
@QuarkusTest
class DashboardApiTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    static String enqueue(Map<String, Object> body) {
        return given().contentType(ContentType.JSON).body(body).post("/jobs")
                .then().statusCode(201).extract().path("id");
    }

    static JsonPath claimOne(String queue, int leaseSeconds) {
        JsonPath claim = given().contentType(ContentType.JSON)
                .body(Map.of("workerId", "w-" + queue, "queues", List.of(queue), "limit", 1, "leaseSeconds", leaseSeconds))
                .post("/claim").then().statusCode(200).extract().jsonPath();
        assertEquals(1, claim.getList("jobs").size(), "one job claimable in " + queue);
        return claim;
    }

    static void fail(String id, String leaseId, String error, boolean retryable) {
        given().contentType(ContentType.JSON)
                .body(Map.of("leaseId", leaseId, "error", error, "retryable", retryable, "retryAfterSeconds", 0))
                .post("/jobs/" + id + "/fail").then().statusCode(200);
    }

    static JsonPath job(String id) {
        return given().get("/jobs/" + id).then().statusCode(200).extract().jsonPath();
    }

    // ---- errors per attempt -------------------------------------------------------------------------

    @Test
    void everyFailedAttemptKeepsItsErrorTheLastTwentyAcrossDeadRequeueAndSuccess() {
        String id = enqueue(Map.of("queue", "errs", "type", "t", "maxAttempts", 25));
        assertEquals(List.of(), job(id).getList("errors"), "no attempt failed yet: []");
        for (int attempt = 1; attempt <= 25; attempt++) {
            JsonPath c = claimOne("errs", 60);
            assertEquals(attempt, c.getInt("jobs[0].attempt"));
            fail(id, c.getString("jobs[0].leaseId"), "boom " + attempt + " \"quoted\" <b>\n\tline", true);
        }
        JsonPath dead = job(id);
        assertEquals("DEAD", dead.getString("status"));
        List<Map<String, Object>> errors = dead.getList("errors");
        assertEquals(20, errors.size(), "bounded to the last 20");
        for (int i = 0; i < 20; i++) {
            int attempt = i + 6;
            assertEquals(attempt, errors.get(i).get("attempt"));
            assertEquals("boom " + attempt + " \"quoted\" <b>\n\tline", errors.get(i).get("error"));
            assertEquals("w-errs", errors.get(i).get("workerId"));
            assertNotNull(Instant.parse((String) errors.get(i).get("at")));
        }
        assertEquals(dead.getString("lastError"), errors.get(19).get("error"));
        Instant first = Instant.parse((String) errors.get(0).get("at"));
        Instant last = Instant.parse((String) errors.get(19).get("at"));
        assertFalse(last.isBefore(first), "oldest first");

        // requeue keeps the history; a success archives it along with the job
        given().contentType(ContentType.JSON).body("{}").post("/jobs/" + id + "/requeue").then().statusCode(200)
                .body("errors", nullValue());
        assertEquals(20, job(id).getList("errors").size());
        JsonPath c = claimOne("errs", 60);
        JsonPath failedAgain = given().contentType(ContentType.JSON)
                .body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", "after requeue", "retryAfterSeconds", 0))
                .post("/jobs/" + id + "/fail").then().statusCode(200).extract().jsonPath();
        assertEquals("PENDING", failedAgain.getString("status"));
        List<Map<String, Object>> kept = job(id).getList("errors");
        assertEquals(20, kept.size());
        assertEquals("after requeue", kept.get(19).get("error"));
        assertEquals(1, kept.get(19).get("attempt"), "attempts restart after a requeue");
        assertEquals(7, kept.get(0).get("attempt"), "the oldest entry dropped");

        c = claimOne("errs", 60);
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .post("/jobs/" + id + "/complete").then().statusCode(200).body("status", equalTo("SUCCEEDED"));
        JsonPath done = job(id);
        assertEquals("SUCCEEDED", done.getString("status"));
        assertEquals(kept, done.getList("errors"));
    }

    @Test
    void errorsAppearOnlyOnTheJobItselfNotInListsOrClaims() {
        String id = enqueue(Map.of("queue", "only", "type", "t", "maxAttempts", 3));
        JsonPath c = claimOne("only", 60);
        assertFalse(c.getMap("jobs[0]").containsKey("errors"), "claims carry no error history");
        fail(id, c.getString("jobs[0].leaseId"), "first", true);
        c = claimOne("only", 60);
        assertFalse(c.getMap("jobs[0]").containsKey("errors"));
        Response list = given().get("/jobs?queue=only");
        list.then().statusCode(200);
        assertFalse(list.jsonPath().getMap("jobs[0]").containsKey("errors"), "browsing carries no error history");
        assertEquals(1, job(id).getList("errors").size());
    }

    @Test
    void anExpiredLeaseIsRecordedAsTheAttemptsError() {
        // no backoff, so the expired job is claimable again at once
        given().contentType(ContentType.JSON).body(Map.of("backoffBaseSeconds", 0, "backoffCapSeconds", 0))
                .put("/queues/expire").then().statusCode(200);
        String id = enqueue(Map.of("queue", "expire", "type", "t", "maxAttempts", 2));
        claimOne("expire", 1);
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> job(id).getList("errors").size() == 1);
        JsonPath j = job(id);
        assertEquals("PENDING", j.getString("status"));
        assertEquals(1, j.getInt("errors[0].attempt"));
        assertEquals("w-expire", j.getString("errors[0].workerId"));
        assertEquals("lease expired (worker w-expire)", j.getString("errors[0].error"));

        // the second expiry uses up the attempts: DEAD, both expiries recorded
        claimOne("expire", 1);
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> "DEAD".equals(job(id).getString("status")));
        assertEquals(List.of(1, 2), job(id).getList("errors.attempt"));
    }

    @Test
    void aCancelledRunningJobKeepsTheErrorItFailedWithButNotARelease() {
        String failed = enqueue(Map.of("queue", "cx", "type", "t"));
        JsonPath c = claimOne("cx", 60);
        given().post("/jobs/" + failed + "/cancel").then().statusCode(200).body("cancelRequested", equalTo(true));
        fail(failed, c.getString("jobs[0].leaseId"), "stopped on request", true);
        JsonPath j = job(failed);
        assertEquals("CANCELLED", j.getString("status"));
        assertEquals(List.of("stopped on request"), j.getList("errors.error"));

        String released = enqueue(Map.of("queue", "cx", "type", "t"));
        c = claimOne("cx", 60);
        given().post("/jobs/" + released + "/cancel").then().statusCode(200);
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .post("/jobs/" + released + "/release").then().statusCode(200).body("status", equalTo("CANCELLED"));
        assertEquals(List.of(), job(released).getList("errors"), "a release is not a failure");

        String pending = enqueue(Map.of("queue", "cx", "type", "t"));
        given().post("/jobs/" + pending + "/cancel").then().statusCode(200).body("status", equalTo("CANCELLED"));
        assertEquals(List.of(), job(pending).getList("errors"));
    }

    // ---- throughput ------------------------------------------------------------------------------

    @Test
    void throughputCountsFinishedJobsPerMinuteQueueAndOutcome() {
        for (int i = 0; i < 3; i++) {
            String id = enqueue(Map.of("queue", "tp-a", "type", "t"));
            JsonPath c = claimOne("tp-a", 60);
            given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                    .post("/jobs/" + id + "/complete").then().statusCode(200);
        }
        String deadId = enqueue(Map.of("queue", "tp-b", "type", "t"));
        fail(deadId, claimOne("tp-b", 60).getString("jobs[0].leaseId"), "fatal", false);
        String cancelled = enqueue(Map.of("queue", "tp-a", "type", "t"));
        given().post("/jobs/" + cancelled + "/cancel").then().statusCode(200);
        // one more that finished two hours ago: outside the window
        String old = enqueue(Map.of("queue", "tp-a", "type", "t"));
        JsonPath oc = claimOne("tp-a", 60);
        given().contentType(ContentType.JSON).body(Map.of("leaseId", oc.getString("jobs[0].leaseId")))
                .post("/jobs/" + old + "/complete").then().statusCode(200);
        backdateFinished(old, 120);
        enqueue(Map.of("queue", "tp-c", "type", "t"));   // a queue with nothing finished

        JsonPath t = given().get("/stats/throughput").then().statusCode(200).contentType(ContentType.JSON)
                .body("bucketSeconds", equalTo(60))
                .body("total.succeeded", hasSize(60))
                .body("total.dead", hasSize(60))
                .body("total.cancelled", hasSize(60))
                .extract().jsonPath();
        Instant from = Instant.parse(t.getString("from"));
        Instant to = Instant.parse(t.getString("to"));
        assertEquals(Duration.ofMinutes(60), Duration.between(from, to));
        assertEquals(0, from.getEpochSecond() % 60, "whole minutes");
        assertEquals(0, from.getNano());
        assertEquals(3, sum(t.getList("total.succeeded", Long.class)));
        assertEquals(1, sum(t.getList("total.dead", Long.class)));
        assertEquals(1, sum(t.getList("total.cancelled", Long.class)));
        // everything finished just now: in the last bucket, or the one before if a minute turned meanwhile
        List<Long> succeeded = t.getList("total.succeeded", Long.class);
        assertEquals(3, succeeded.get(58) + succeeded.get(59));
        assertEquals(List.of("tp-a", "tp-b"), t.getList("queues.queue"));
        assertEquals(3, sum(t.getList("queues[0].succeeded", Long.class)));
        assertEquals(1, sum(t.getList("queues[0].cancelled", Long.class)));
        assertEquals(0, sum(t.getList("queues[0].dead", Long.class)));
        assertEquals(1, sum(t.getList("queues[1].dead", Long.class)));

        JsonPath onlyB = given().get("/stats/throughput?queue=tp-b&minutes=5").then().statusCode(200)
                .body("total.dead", hasSize(5)).extract().jsonPath();
        assertEquals(List.of("tp-b"), onlyB.getList("queues.queue"));
        assertEquals(0, sum(onlyB.getList("total.succeeded", Long.class)));
        assertEquals(Duration.ofMinutes(5), Duration.between(Instant.parse(onlyB.getString("from")),
                Instant.parse(onlyB.getString("to"))));

        JsonPath day = given().get("/stats/throughput?minutes=1440").then().statusCode(200).extract().jsonPath();
        assertEquals(4, sum(day.getList("total.succeeded", Long.class)), "the backdated one is inside a day");
        assertEquals(1, day.getList("total.succeeded", Long.class).get(1440 - 121)
                + day.getList("total.succeeded", Long.class).get(1440 - 122), "two hours back");
    }

    @Test
    void throughputOfNothingIsZerosNotAnError() {
        JsonPath t = given().get("/stats/throughput?minutes=3").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(0L, 0L, 0L), t.getList("total.succeeded", Long.class));
        assertEquals(List.of(), t.getList("queues"));
        assertNotNull(Instant.parse(t.getString("from")));
    }

    @Test
    void throughputRefusesBadParameters() {
        for (String query : List.of("minutes=0", "minutes=1441", "minutes=abc", "minutes=-5", "queue=bad%20name",
                "queue=" + "q".repeat(201))) {
            given().get("/stats/throughput?" + query).then().statusCode(400)
                    .contentType("application/problem+json").body("status", equalTo(400));
        }
    }

    private static long sum(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).sum();
    }

    /** Moves an archived job's finished_at back by some minutes (database clock). */
    private static void backdateFinished(String id, int minutes) {
        String sql = TestDb.engine() == Engine.SQLSERVER
                ? "UPDATE readpast_job_archive SET finished_at = DATEADD(MINUTE, -?, finished_at) WHERE id = ?"
                : "UPDATE readpast_job_archive SET finished_at = finished_at - ? * interval '1 minute' WHERE id = ?";
        assertEquals(1, TestDb.update(sql, minutes, Long.parseLong(id)));
    }

    // ---- who am I, and the dashboard itself -----------------------------------------------------------

    @Test
    void meWithAuthenticationOffIsAnAnonymousAdmin() {
        given().get("/me").then().statusCode(200)
                .body("name", nullValue())
                .body("roles", equalTo(List.of("admin")))
                .body("queues", nullValue())
                .body("authEnabled", equalTo(false));
    }

    @Test
    void theDashboardIsServedWithStrictHeaders() {
        given().redirects().follow(false).get("/ui").then().statusCode(302).header("Location", containsString("/ui/"));
        String html = given().get("/ui/").then().statusCode(200).contentType(containsString("text/html"))
                .header("Content-Security-Policy", containsString("script-src 'self'"))
                .header("Content-Security-Policy", containsString("frame-ancestors 'none'"))
                .header("X-Content-Type-Options", equalTo("nosniff"))
                .header("Referrer-Policy", equalTo("no-referrer"))
                .extract().asString();
        assertTrue(html.contains("<title>Readpast</title>"));
        assertFalse(html.contains("<script>"), "no inline script (the CSP would block it)");
        given().get("/ui/app.js").then().statusCode(200).contentType(containsString("javascript"));
        given().get("/ui/app.css").then().statusCode(200).contentType(containsString("css"));
        // the API keeps its own headers: no CSP on JSON answers
        assertEquals(null, given().get("/queues").then().statusCode(200).extract().header("Content-Security-Policy"));
    }

    @Test
    void theDashboardNeverRendersDataAsHtmlNorPutsTheKeyInAUrl() throws IOException {
        String js = resource("META-INF/resources/ui/app.js");
        for (String sink : List.of("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                "new Function", "localStorage")) {
            assertFalse(js.contains(sink), "app.js uses " + sink);
        }
        assertTrue(js.contains("sessionStorage"));
        String html = resource("META-INF/resources/ui/index.html");
        assertTrue(html.contains("id=\"login-form\" method=\"post\""), "the login form never submits by GET");
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(name)) {
            assertNotNull(in, name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
