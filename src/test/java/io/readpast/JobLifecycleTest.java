package io.readpast;

import io.readpast.testsupport.TestDb;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.readpast.testsupport.Jobs.claim;
import static io.readpast.testsupport.Jobs.enqueue;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every endpoint of the core lifecycle, through HTTP, against the real database. */
@QuarkusTest
class JobLifecycleTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    @Test
    void enqueueReturnsTheJobWithLocation() {
        given().contentType(ContentType.JSON)
                .body(Map.of("queue", "emails", "type", "send", "payload", Map.of("to", "a@b.c", "n", 3),
                        "priority", 7, "tags", List.of("x", "y"), "maxAttempts", 4))
                .when().post("/jobs")
                .then().statusCode(201)
                .header("Location", startsWith("http"))
                .body("id", notNullValue())
                .body("queue", equalTo("emails"))
                .body("type", equalTo("send"))
                .body("payload.to", equalTo("a@b.c"))
                .body("payload.n", equalTo(3))
                .body("priority", equalTo(7))
                .body("status", equalTo("PENDING"))
                .body("attempt", equalTo(0))
                .body("maxAttempts", equalTo(4))
                .body("tags", equalTo(List.of("x", "y")))
                .body("runAt", notNullValue())
                .body("createdAt", notNullValue())
                .body("updatedAt", notNullValue())
                .body("workerId", nullValue())
                .body("leaseExpiresAt", nullValue())
                .body("lastError", nullValue())
                .body("result", nullValue());
    }

    @Test
    void locationPointsAtTheJob() {
        String location = given().contentType(ContentType.JSON).body(Map.of("queue", "q", "type", "t"))
                .when().post("/jobs").then().statusCode(201).extract().header("Location");
        String id = location.substring(location.lastIndexOf('/') + 1);
        given().when().get("/jobs/" + id).then().statusCode(200).body("id", equalTo(id)).body("payload", nullValue());
    }

    @Test
    void fullHappyPath() {
        String id = enqueue(Map.of("queue", "work", "type", "t", "payload", Map.of("k", 1)));
        JsonPath claimed = claim(Map.of("workerId", "w1", "queues", List.of("work"), "leaseSeconds", 60));
        assertEquals(1, claimed.getList("jobs").size());
        assertEquals(id, claimed.getString("jobs[0].id"));
        assertEquals("LEASED", claimed.getString("jobs[0].status"));
        assertEquals("w1", claimed.getString("jobs[0].workerId"));
        assertEquals(1, claimed.getInt("jobs[0].attempt"));
        String lease = claimed.getString("jobs[0].leaseId");
        Instant firstExpiry = Instant.parse(claimed.getString("jobs[0].leaseExpiresAt"));

        // the lease id is never shown outside the claim
        given().when().get("/jobs/" + id).then().statusCode(200)
                .body("status", equalTo("LEASED")).body("leaseId", nullValue());

        String hbExpiry = given().contentType(ContentType.JSON).body(Map.of("leaseId", lease, "leaseSeconds", 120))
                .when().post("/jobs/" + id + "/heartbeat")
                .then().statusCode(200).body("status", equalTo("PROCESSING")).body("cancelRequested", equalTo(false))
                .extract().path("leaseExpiresAt");
        assertTrue(Instant.parse(hbExpiry).isAfter(firstExpiry), "heartbeat extends the lease");
        given().when().get("/jobs/" + id).then().body("status", equalTo("PROCESSING"));

        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease, "result", Map.of("ok", true)))
                .when().post("/jobs/" + id + "/complete")
                .then().statusCode(200).body("status", equalTo("SUCCEEDED")).body("result.ok", equalTo(true));
        given().when().get("/jobs/" + id).then().statusCode(200)
                .body("status", equalTo("SUCCEEDED")).body("finishedAt", notNullValue()).body("result.ok", equalTo(true));

        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"));
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job_archive"));
        // repeating the completion with the same lease (a worker that lost the first answer) is
        // answered as the first call was, and changes nothing: the first result stays
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease, "result", Map.of("ok", false)))
                .when().post("/jobs/" + id + "/complete")
                .then().statusCode(200).body("status", equalTo("SUCCEEDED")).body("result.ok", equalTo(true));
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job_archive"));
        // but the lease is gone: it cannot heartbeat, fail or release any more
        for (String action : List.of("heartbeat", "fail", "release")) {
            given().contentType(ContentType.JSON).body(Map.of("leaseId", lease))
                    .when().post("/jobs/" + id + "/" + action)
                    .then().statusCode(409).contentType("application/problem+json");
        }
        given().when().get("/jobs/" + id).then().body("status", equalTo("SUCCEEDED")).body("result.ok", equalTo(true));
    }

    @Test
    void emptyClaimReturnsEmptyList() {
        given().contentType(ContentType.JSON).body(Map.of("workerId", "w"))
                .when().post("/claim").then().statusCode(200).body("jobs", hasSize(0))
                .body("$", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasKey("unknownQueues")));
    }

    @Test
    void anEmptyClaimNamesTheQueuesThatDoNotExist() {
        // unique names: queues are never deleted, so the broker remembers the ones it saw exist
        String known = "known-" + System.nanoTime();
        String typo = "typo-" + System.nanoTime();
        String id = enqueue(Map.of("queue", known, "type", "t"));
        JsonPath busy = claim(Map.of("workerId", "w", "queues", List.of(known)));
        assertEquals(List.of(id), busy.getList("jobs.id"));
        org.junit.jupiter.api.Assertions.assertNull(busy.get("unknownQueues"), "a claim that found jobs says nothing more");

        List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
        org.jboss.logmanager.ExtHandler capture = new org.jboss.logmanager.ExtHandler() {
            @Override
            protected void doPublish(org.jboss.logmanager.ExtLogRecord record) {
                logged.add(record.getFormattedMessage());
            }
        };
        org.jboss.logmanager.Logger root = org.jboss.logmanager.Logger.getLogger("");
        root.addHandler(capture);
        JsonPath empty;
        try {
            empty = claim(Map.of("workerId", "w-typo", "queues", List.of(known, typo)));
            claim(Map.of("workerId", "w-typo", "queues", List.of(typo)));
        } finally {
            root.removeHandler(capture);
        }
        // against the packaged artifact (an integration test), its log file holds what it logged
        logged.addAll(TestDb.artifactLog());
        assertEquals(List.of(), empty.getList("jobs"));
        assertEquals(List.of(typo), empty.getList("unknownQueues"), "only the queue that does not exist");
        assertEquals(1, logged.stream().filter(l -> l.contains("w-typo") && l.contains("'" + typo + "'")
                && l.contains("does not exist")).count(), "logged once per queue: " + logged);
        JsonPath polled = claim(Map.of("workerId", "w", "queues", List.of(typo), "waitSeconds", 1));
        assertEquals(List.of(typo), polled.getList("unknownQueues"), "a long poll says so at its deadline");

        // queue settings make a queue exist, as does an enqueue
        given().contentType(ContentType.JSON).body(Map.of("paused", false)).put("/queues/" + typo)
                .then().statusCode(200);
        JsonPath now = claim(Map.of("workerId", "w", "queues", List.of(known, typo)));
        assertEquals(List.of(), now.getList("jobs"));
        org.junit.jupiter.api.Assertions.assertNull(now.get("unknownQueues"));
    }

    @Test
    void claimOrdersByPriorityThenDueTime() {
        String low = enqueue(Map.of("queue", "p", "type", "t", "priority", 1));
        String high = enqueue(Map.of("queue", "p", "type", "t", "priority", 10));
        String mid1 = enqueue(Map.of("queue", "p", "type", "t", "priority", 5));
        String mid2 = enqueue(Map.of("queue", "p", "type", "t", "priority", 5));
        JsonPath c = claim(Map.of("workerId", "w", "limit", 4));
        assertEquals(List.of(high, mid1, mid2, low), c.getList("jobs.id"));
        // one at a time gives the same order
        TestDb.clean();
        String a = enqueue(Map.of("queue", "p", "type", "t", "priority", -3));
        String b = enqueue(Map.of("queue", "p", "type", "t", "priority", 100));
        assertEquals(b, claim(Map.of("workerId", "w")).getString("jobs[0].id"));
        assertEquals(a, claim(Map.of("workerId", "w")).getString("jobs[0].id"));
    }

    @Test
    void delayedAndScheduledJobsWaitForTheirTime() {
        String delayed = enqueue(Map.of("queue", "d", "type", "t", "delaySeconds", 3600));
        String future = enqueue(Map.of("queue", "d", "type", "t", "runAt", "2099-01-01T00:00:00Z"));
        String past = enqueue(Map.of("queue", "d", "type", "t", "runAt", "2001-01-01T00:00:00+02:00"));
        given().when().get("/jobs/" + future).then().body("runAt", equalTo("2099-01-01T00:00:00Z"));
        JsonPath c = claim(Map.of("workerId", "w", "limit", 10));
        assertEquals(List.of(past), c.getList("jobs.id"));
        given().when().get("/jobs/" + delayed).then().body("status", equalTo("PENDING"));
        given().when().get("/queues/d").then().statusCode(200).body("scheduled", equalTo(2));
    }

    @Test
    void pausedQueueIsNotClaimedUntilResumed() {
        String id = enqueue(Map.of("queue", "pz", "type", "t"));
        String other = enqueue(Map.of("queue", "open", "type", "t"));
        given().contentType(ContentType.JSON).body(Map.of("paused", true))
                .when().put("/queues/pz").then().statusCode(200).body("paused", equalTo(true)).body("name", equalTo("pz"));
        assertEquals(List.of(other), claim(Map.of("workerId", "w", "limit", 10)).getList("jobs.id"));
        assertEquals(List.of(), claim(Map.of("workerId", "w", "queues", List.of("pz"))).getList("jobs.id"));
        given().contentType(ContentType.JSON).body(Map.of("paused", false))
                .when().put("/queues/pz").then().statusCode(200).body("paused", equalTo(false));
        assertEquals(List.of(id), claim(Map.of("workerId", "w", "queues", List.of("pz"))).getList("jobs.id"));
    }

    @Test
    void queuesFilterIsHonoured() {
        String a = enqueue(Map.of("queue", "qa", "type", "t", "priority", 1));
        String b = enqueue(Map.of("queue", "qb", "type", "t", "priority", 9));
        enqueue(Map.of("queue", "qc", "type", "t", "priority", 99));
        JsonPath c = claim(Map.of("workerId", "w", "queues", List.of("qa", "qb"), "limit", 10));
        assertEquals(List.of(b, a), c.getList("jobs.id"));
    }

    @Test
    void failRetriesWithBackoffThenDies() {
        String id = enqueue(Map.of("queue", "f", "type", "t", "maxAttempts", 2));
        String lease1 = claim(Map.of("workerId", "w")).getString("jobs[0].leaseId");
        JsonPath failed = given().contentType(ContentType.JSON).body(Map.of("leaseId", lease1, "error", "boom"))
                .when().post("/jobs/" + id + "/fail")
                .then().statusCode(200).body("status", equalTo("PENDING")).body("lastError", equalTo("boom"))
                .body("workerId", nullValue()).body("attempt", equalTo(1))
                .extract().jsonPath();
        Instant runAt = Instant.parse(failed.getString("runAt"));
        Instant updated = Instant.parse(failed.getString("updatedAt"));
        assertTrue(runAt.isAfter(updated), "the retry is due later than now (backoff)");
        // not claimable during the backoff
        assertEquals(List.of(), claim(Map.of("workerId", "w")).getList("jobs"));

        // make it due now and fail again: attempts (2) are used up, so it dies
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease1)).when().post("/jobs/" + id + "/fail")
                .then().statusCode(409);
        makeDue(id);
        String lease2 = claim(Map.of("workerId", "w")).getString("jobs[0].leaseId");
        assertNotEquals(lease1, lease2, "each claim gets a fresh lease id");
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease2, "error", "again"))
                .when().post("/jobs/" + id + "/fail")
                .then().statusCode(200).body("status", equalTo("DEAD")).body("attempt", equalTo(2))
                .body("lastError", equalTo("again"));
        given().when().get("/jobs/" + id).then().statusCode(200).body("status", equalTo("DEAD"));
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job_dead"));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"));
    }

    @Test
    void retryAfterSecondsZeroMakesTheJobDueAtOnce() {
        String id = enqueue(Map.of("queue", "f0", "type", "t"));
        String lease = claim(Map.of("workerId", "w")).getString("jobs[0].leaseId");
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease, "error", "x", "retryAfterSeconds", 0))
                .when().post("/jobs/" + id + "/fail").then().statusCode(200).body("status", equalTo("PENDING"));
        JsonPath again = claim(Map.of("workerId", "w2"));
        assertEquals(id, again.getString("jobs[0].id"));
        assertEquals(2, again.getInt("jobs[0].attempt"));
    }

    @Test
    void nonRetryableFailureGoesStraightToDead() {
        String id = enqueue(Map.of("queue", "f1", "type", "t", "maxAttempts", 10));
        String lease = claim(Map.of("workerId", "w")).getString("jobs[0].leaseId");
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease, "error", "fatal", "retryable", false))
                .when().post("/jobs/" + id + "/fail").then().statusCode(200)
                .body("status", equalTo("DEAD")).body("attempt", equalTo(1));
        // the same report again (its answer was lost): the same answer, nothing changes
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease, "error", "fatal again", "retryable", false))
                .when().post("/jobs/" + id + "/fail").then().statusCode(200)
                .body("status", equalTo("DEAD")).body("lastError", equalTo("fatal"));
        // a lease that never held the job is still refused
        given().contentType(ContentType.JSON).body(Map.of("leaseId", "00000000-0000-4000-8000-000000000000"))
                .when().post("/jobs/" + id + "/fail").then().statusCode(409);
    }

    @Test
    void releaseReturnsTheJobWithoutSpendingAnAttempt() {
        String id = enqueue(Map.of("queue", "r", "type", "t", "maxAttempts", 1));
        String lease = claim(Map.of("workerId", "w")).getString("jobs[0].leaseId");
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease))
                .when().post("/jobs/" + id + "/release").then().statusCode(200)
                .body("status", equalTo("PENDING")).body("attempt", equalTo(0)).body("workerId", nullValue());
        // the released lease is dead
        given().contentType(ContentType.JSON).body(Map.of("leaseId", lease))
                .when().post("/jobs/" + id + "/heartbeat").then().statusCode(409);
        JsonPath again = claim(Map.of("workerId", "w2"));
        assertEquals(id, again.getString("jobs[0].id"));
        assertEquals(1, again.getInt("jobs[0].attempt"));
    }

    @Test
    void wrongLeaseIsConflictAndChangesNothing() {
        String id = enqueue(Map.of("queue", "c", "type", "t"));
        claim(Map.of("workerId", "w"));
        String wrong = "00000000-0000-4000-8000-000000000000";
        for (String action : List.of("heartbeat", "complete", "fail", "release")) {
            given().contentType(ContentType.JSON).body(Map.of("leaseId", wrong))
                    .when().post("/jobs/" + id + "/" + action)
                    .then().statusCode(409).contentType("application/problem+json")
                    .body("status", equalTo(409)).body("title", notNullValue()).body("detail", notNullValue());
        }
        given().when().get("/jobs/" + id).then().body("status", equalTo("LEASED")).body("attempt", equalTo(1));
    }

    @Test
    void unknownJobIs404() {
        String lease = "00000000-0000-4000-8000-000000000000";
        given().when().get("/jobs/987654321").then().statusCode(404).contentType("application/problem+json")
                .body("status", equalTo(404));
        given().when().get("/jobs/not-a-number").then().statusCode(404).contentType("application/problem+json");
        for (String action : List.of("heartbeat", "complete", "fail", "release")) {
            given().contentType(ContentType.JSON).body(Map.of("leaseId", lease))
                    .when().post("/jobs/987654321/" + action).then().statusCode(404)
                    .contentType("application/problem+json");
        }
        given().when().get("/queues/nosuchqueue").then().statusCode(404).contentType("application/problem+json");
    }

    @Test
    void invalidBodiesAre400AndChangeNothing() {
        List<String> badEnqueues = List.of(
                "{",                                                   // truncated
                "[]",                                                  // not an object
                "{\"type\":\"t\"}",                                    // no queue
                "{\"queue\":\"q\"}",                                   // no type
                "{\"queue\":\"q\",\"type\":\"t\",\"priority\":\"high\"}",   // wrong type
                "{\"queue\":\"q\",\"type\":\"t\",\"priority\":1.5}",       // float for int
                "{\"queue\":\"q\",\"type\":\"t\",\"delaySeconds\":-1}",
                "{\"queue\":\"q\",\"type\":\"t\",\"runAt\":\"tomorrow\"}",
                "{\"queue\":\"q\",\"type\":\"t\",\"runAt\":\"2030-01-01T00:00:00Z\",\"delaySeconds\":5}",
                "{\"queue\":\"q q\",\"type\":\"t\"}",
                "{\"queue\":\"q'; DROP TABLE readpast_job; --\",\"type\":\"t\"}",
                "{\"queue\":\"q\",\"type\":\"t\",\"maxAttempts\":0}",
                "{\"queue\":\"q\",\"type\":\"t\",\"tags\":\"notalist\"}",
                "{\"queue\":\"q\",\"type\":\"t\",\"surprise\":1}");
        for (String body : badEnqueues) {
            given().contentType(ContentType.JSON).body(body).when().post("/jobs")
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("status", equalTo(400)).body("detail", notNullValue());
        }
        List<String> badClaims = List.of("{}", "{\"workerId\":\"w\",\"limit\":0}", "{\"workerId\":\"w\",\"limit\":1001}",
                "{\"workerId\":\"w\",\"leaseSeconds\":0}", "{\"workerId\":\"w\",\"queues\":[]}",
                "{\"workerId\":\"w\",\"queues\":[\"bad name\"]}", "{\"workerId\":\"\"}");
        for (String body : badClaims) {
            given().contentType(ContentType.JSON).body(body).when().post("/claim")
                    .then().statusCode(400).contentType("application/problem+json");
        }
        given().contentType(ContentType.JSON).body("{\"leaseId\":\"nope\"}").when().post("/jobs/1/heartbeat")
                .then().statusCode(400).contentType("application/problem+json");
        given().contentType(ContentType.TEXT).body("hello").when().post("/jobs")
                .then().statusCode(415).contentType("application/problem+json")
                .body("type", equalTo("urn:readpast:problem:unsupported-media-type"))
                .body("detail", equalTo("Send the body as application/json."));
        given().when().delete("/claim").then().statusCode(405).contentType("application/problem+json");
        given().contentType(ContentType.JSON).body("{\"maxWorkers\":-1}").when().put("/queues/q")
                .then().statusCode(400).contentType("application/problem+json");
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_queue"));
    }

    static void makeDue(String id) {
        String sql = TestDb.engine() == io.readpast.config.Engine.SQLSERVER
                ? "UPDATE readpast_job SET due_at = SYSUTCDATETIME() WHERE id = ?"
                : "UPDATE readpast_job SET due_at = now() WHERE id = ?";
        assertEquals(1, TestDb.update(sql, Long.parseLong(id)));
    }

}
