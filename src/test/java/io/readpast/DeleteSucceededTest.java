package io.readpast;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.Jobs;
import io.readpast.testsupport.TestDb;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A queue's onSuccess: archive (the default) keeps succeeded jobs in the archive until retention;
 * delete deletes them in the completing statement, by every way a job completes (single complete,
 * POST /jobs/complete, ack-and-claim), answering each caller as before. Jobs of a batch and jobs
 * others wait on are archived all the same.
 */
@QuarkusTest
class DeleteSucceededTest {

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    private static JsonPath put(String queue, Map<String, Object> settings) {
        return given().contentType(ContentType.JSON).body(settings).put("/queues/" + queue)
                .then().statusCode(200).extract().jsonPath();
    }

    private static long archived(String queue) {
        return TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = ?", queue);
    }

    private static long hot(String queue) {
        return TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = ?", queue);
    }

    private static JsonPath claim(String queue, int limit) {
        return Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", limit));
    }

    @Test
    void aDeletingQueueKeepsNoCopyOfItsSucceededJobsWhicheverWayTheyComplete() {
        assertEquals("delete", put("gone", Map.of("onSuccess", "delete")).getString("onSuccess"));
        given().get("/queues/gone").then().statusCode(200).body("onSuccess", equalTo("delete"));
        for (int i = 0; i < 4; i++) {
            Jobs.enqueue(Map.of("queue", "gone", "type", "t", "payload", Map.of("n", i)));
        }
        JsonPath c = claim("gone", 3);
        List<String> ids = c.getList("jobs.id");
        List<String> leases = c.getList("jobs.leaseId");
        assertEquals(3, ids.size());

        // single complete: answered with the job as SUCCEEDED and its result, then gone
        given().contentType(ContentType.JSON).body(Map.of("leaseId", leases.get(0), "result", Map.of("ok", 1)))
                .post("/jobs/" + ids.get(0) + "/complete").then().statusCode(200)
                .body("id", equalTo(ids.get(0))).body("status", equalTo("SUCCEEDED")).body("result.ok", equalTo(1));
        given().get("/jobs/" + ids.get(0)).then().statusCode(404);
        // completed again with the same lease: the job no longer exists
        given().contentType(ContentType.JSON).body(Map.of("leaseId", leases.get(0)))
                .post("/jobs/" + ids.get(0) + "/complete").then().statusCode(404);

        // batch complete: per-item answers as before, one stale lease refused on its own
        given().contentType(ContentType.JSON).body(Map.of("items", List.of(
                        Map.of("id", ids.get(1), "leaseId", leases.get(1)),
                        Map.of("id", ids.get(2), "leaseId", "00000000-0000-0000-0000-000000000000"))))
                .post("/jobs/complete").then().statusCode(200).body("succeeded", equalTo(1))
                .body("results[0].status", equalTo(200)).body("results[1].status", equalTo(409));
        given().get("/jobs/" + ids.get(1)).then().statusCode(404);

        // ack-and-claim: the acked job goes, the next one is leased in the same request
        Map<String, Object> body = new LinkedHashMap<>(Map.of("workerId", "w", "queues", List.of("gone"), "limit", 5));
        body.put("ack", List.of(Map.of("id", ids.get(2), "leaseId", leases.get(2))));
        JsonPath r = given().contentType(ContentType.JSON).body(body).post("/claim").then().statusCode(200)
                .extract().jsonPath();
        assertEquals(200, r.getInt("acks[0].status"));
        assertEquals(1, r.getList("jobs").size(), "the fourth job is leased");
        given().get("/jobs/" + ids.get(2)).then().statusCode(404);

        assertEquals(0, archived("gone"), "no archive copy of any succeeded job");
        assertEquals(1, hot("gone"), "only the job just leased is left");

        // a failure is unchanged: a dead letter is kept whatever onSuccess says
        given().contentType(ContentType.JSON).body(Map.of("leaseId", r.getString("jobs[0].leaseId"),
                        "error", "boom", "retryable", false))
                .post("/jobs/" + r.getString("jobs[0].id") + "/fail").then().statusCode(200);
        given().get("/jobs/" + r.getString("jobs[0].id")).then().statusCode(200).body("status", equalTo("DEAD"));
    }

    @Test
    void theDefaultArchivesAndPutWithoutTheFieldGoesBackToIt() {
        assertEquals("archive", put("kept", Map.of()).getString("onSuccess"));
        String id = Jobs.enqueue(Map.of("queue", "kept", "type", "t"));
        JsonPath c = claim("kept", 1);
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .post("/jobs/" + id + "/complete").then().statusCode(200);
        given().get("/jobs/" + id).then().statusCode(200).body("status", equalTo("SUCCEEDED"));
        assertEquals(1, archived("kept"));

        // PUT replaces every setting: delete, then a PUT without onSuccess archives again
        put("kept", Map.of("onSuccess", "delete"));
        assertEquals("archive", put("kept", Map.of("maxWorkers", 2)).getString("onSuccess"));
        // a deleted queue comes back with the default
        put("kept2", Map.of("onSuccess", "delete"));
        given().delete("/queues/kept2").then().statusCode(204);
        assertEquals("archive", put("kept2", Map.of()).getString("onSuccess"));
    }

    @Test
    void jobsOfABatchAndJobsOthersWaitOnAreArchivedAllTheSame() {
        put("linked", Map.of("onSuccess", "delete"));
        String parent = Jobs.enqueue(Map.of("queue", "linked", "type", "p"));
        Map<String, Object> child = new LinkedHashMap<>(Map.of("queue", "linked", "type", "c"));
        child.put("dependsOn", Map.of("jobs", List.of(parent)));
        String childId = Jobs.enqueue(child);
        String inBatch = given().contentType(ContentType.JSON)
                .body(Map.of("jobs", List.of(Map.of("queue", "linked", "type", "b"))))
                .post("/batches").then().statusCode(201).extract().jsonPath().getString("jobs[0]");

        JsonPath c = claim("linked", 10);
        assertEquals(2, c.getList("jobs").size(), "the parent and the batch's job; the child waits");
        for (int i = 0; i < 2; i++) {
            given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[" + i + "].leaseId")))
                    .post("/jobs/" + c.getString("jobs[" + i + "].id") + "/complete").then().statusCode(200);
        }
        given().get("/jobs/" + parent).then().statusCode(200).body("status", equalTo("SUCCEEDED"));
        given().get("/jobs/" + inBatch).then().statusCode(200).body("status", equalTo("SUCCEEDED"));
        given().get("/jobs/" + childId).then().statusCode(200).body("status", equalTo("PENDING"));

        // the child has no dependants and no batch: it goes
        JsonPath cc = claim("linked", 1);
        given().contentType(ContentType.JSON).body(Map.of("leaseId", cc.getString("jobs[0].leaseId")))
                .post("/jobs/" + childId + "/complete").then().statusCode(200);
        given().get("/jobs/" + childId).then().statusCode(404);
        assertEquals(2, archived("linked"));
    }

    @Test
    void anUnknownChoiceIsRefusedAndChangesNothing() {
        put("strict", Map.of("onSuccess", "delete", "maxWorkers", 3));
        given().contentType(ContentType.JSON).body(Map.of("onSuccess", "purge")).put("/queues/strict")
                .then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("onSuccess"));
        given().get("/queues/strict").then().statusCode(200).body("onSuccess", equalTo("delete"))
                .body("maxWorkers", equalTo(3));
    }
}
