package io.readpast;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.Jobs;
import io.readpast.testsupport.TestDb;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DELETE /queues/{name}: an empty queue goes (from the list, GET and the claim's known queues),
 * its settings with it; one that holds unfinished jobs, dead letters or a schedule is refused
 * with 409 saying what holds it; purge=true deletes its finished history first. A job enqueued
 * while the queue is being deleted is never lost: it stays claimable, and its queue shows again.
 */
@QuarkusTest
class QueueDeleteTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    private static List<String> listed() {
        return given().when().get("/queues?all=true").then().statusCode(200).extract().jsonPath().getList("queues.name");
    }

    private static void finish(String queue) {
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", 100));
        for (int i = 0; i < c.getList("jobs").size(); i++) {
            given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[" + i + "].leaseId")))
                    .post("/jobs/" + c.getString("jobs[" + i + "].id") + "/complete").then().statusCode(200);
        }
    }

    @Test
    void anEmptyQueueGoesWithItsSettingsAndComesBackFresh() {
        given().contentType(ContentType.JSON).body(Map.of("maxWorkers", 1, "leaseSeconds", 90))
                .put("/queues/tmp").then().statusCode(200);
        String id = Jobs.enqueue(Map.of("queue", "tmp", "type", "t"));
        given().delete("/queues/tmp").then().statusCode(409).contentType("application/problem+json")
                .body("type", equalTo("urn:readpast:problem:state-conflict"))
                .body("detail", containsString("1 unfinished job"));
        assertTrue(listed().contains("tmp"), "refused: nothing changed");
        finish("tmp");

        given().delete("/queues/tmp").then().statusCode(204);
        assertFalse(listed().contains("tmp"));
        given().get("/queues/tmp").then().statusCode(404);
        given().delete("/queues/tmp").then().statusCode(404);
        given().post("/queues/tmp/pause").then().statusCode(404);
        // its finished job stays readable until retention (no purge)
        given().get("/jobs/" + id).then().statusCode(200).body("status", equalTo("SUCCEEDED"));
        // a claim on it says it does not exist
        assertEquals(List.of("tmp"), Jobs.claim(Map.of("workerId", "w", "queues", List.of("tmp"))).getList("unknownQueues"));

        // an enqueue brings it back, with the default settings
        Jobs.enqueue(Map.of("queue", "tmp", "type", "t"));
        given().get("/queues/tmp").then().statusCode(200).body("maxWorkers", nullValue())
                .body("leaseSeconds", nullValue()).body("pending", equalTo(1));
        finish("tmp");
        given().get("/queues/tmp").then().statusCode(200); // used since its deletion: still a queue
        given().delete("/queues/tmp").then().statusCode(204);
        // PUT makes it a configured queue again
        given().contentType(ContentType.JSON).body(Map.of("paused", true)).put("/queues/tmp").then().statusCode(200);
        given().get("/queues/tmp").then().statusCode(200).body("paused", equalTo(true));
    }

    @Test
    void deadLettersAndSchedulesHoldAQueueAndPurgeDeletesTheHistory() {
        String dead = Jobs.enqueue(Map.of("queue", "held", "type", "t", "maxAttempts", 1));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("held")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", "boom",
                "retryable", false)).post("/jobs/" + dead + "/fail").then().statusCode(200);
        String done = Jobs.enqueue(Map.of("queue", "held", "type", "t"));
        finish("held");
        given().delete("/queues/held").then().statusCode(409).body("detail", containsString("1 dead letter"));

        given().contentType(ContentType.JSON).body(Map.of("cron", "0 3 * * *", "job", Map.of("queue", "held", "type", "n")))
                .put("/schedules/nightly").then().statusCode(200);
        given().delete("/queues/held?purge=true").then().statusCode(409).body("detail", containsString("1 schedule"));
        given().get("/jobs/" + dead).then().statusCode(200); // nothing purged while the queue could not go
        given().delete("/schedules/nightly").then().statusCode(204);

        given().delete("/queues/held?purge=true").then().statusCode(204);
        given().get("/jobs/" + dead).then().statusCode(404);
        given().get("/jobs/" + done).then().statusCode(404);
        assertFalse(listed().contains("held"));
        given().delete("/queues/held?purge=maybe").then().statusCode(400);
    }

    @Test
    void purgeWorksThroughMoreThanOneChunk() {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            jobs.add(Map.of("queue", "big", "type", "t"));
        }
        for (int round = 0; round < 2; round++) {
            given().contentType(ContentType.JSON).body(Map.of("jobs", jobs)).post("/jobs/batch").then().statusCode(200);
            JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("big"), "limit", 1000, "leaseSeconds", 300));
            assertEquals(1000, c.getList("jobs").size(), "round " + round + " claimed its 1000");
            List<String> ids = c.getList("jobs.id");
            List<String> leases = c.getList("jobs.leaseId");
            List<Map<String, Object>> items = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                items.add(Map.of("id", ids.get(i), "leaseId", leases.get(i)));
            }
            given().contentType(ContentType.JSON).body(Map.of("items", items)).post("/jobs/complete").then().statusCode(200)
                    .body("succeeded", equalTo(1000));
        }
        assertEquals(2000, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = 'big'"));
        given().delete("/queues/big?purge=true").then().statusCode(204);
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = 'big'"));
    }

    /**
     * Deletes racing enqueues: whichever wins, every enqueued job stays claimable (the queue row is
     * kept as a tombstone, so no job is left without it), and a queue holding jobs is listed.
     */
    @Test
    void aJobEnqueuedWhileItsQueueIsDeletedIsNeverLost() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        Set<String> enqueued = java.util.concurrent.ConcurrentHashMap.newKeySet();
        try {
            for (int round = 0; round < 30; round++) {
                String queue = "race-" + round;
                List<Future<?>> work = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    work.add(pool.submit(() -> enqueued.add(Jobs.enqueue(Map.of("queue", queue, "type", "t")))));
                }
                work.add(pool.submit(() -> given().delete("/queues/" + queue).then()
                        .statusCode(org.hamcrest.Matchers.anyOf(equalTo(204), equalTo(409), equalTo(404)))));
                for (Future<?> f : work) {
                    f.get(30, TimeUnit.SECONDS);
                }
                assertTrue(listed().contains(queue), queue + " holds jobs, so it is listed");
            }
        } finally {
            pool.shutdownNow();
        }
        Set<String> claimed = new HashSet<>();
        for (int round = 0; round < 30; round++) {
            JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("race-" + round), "limit", 10));
            claimed.addAll(c.getList("jobs.id"));
        }
        assertEquals(90, enqueued.size());
        assertEquals(enqueued, claimed, "every job enqueued around a deletion is claimable");
    }
}
