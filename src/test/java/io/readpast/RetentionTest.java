package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Jobs;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
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

/**
 * The retention sweeper deletes finished jobs past a (here very short) retention, and finished
 * batches past theirs with the jobs they still have in the archive or the dead letters.
 */
@QuarkusTest
@TestProfile(RetentionTest.ShortRetention.class)
class RetentionTest {

    public static class ShortRetention implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "readpast.retention.succeeded", "PT2S",
                    "readpast.retention.dead", "PT4S",
                    "readpast.retention.batches", "PT3S",
                    "readpast.retention.interval", "1s",
                    "readpast.retention.batch", "2");
        }
    }

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    @Test
    void finishedJobsAreDeletedAfterTheirRetentionAndLiveOnesStay() {
        String[] done = new String[5];
        for (int i = 0; i < done.length; i++) {
            done[i] = Jobs.enqueue(Map.of("queue", "ret", "type", "t"));
            JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("ret")));
            given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                    .when().post("/jobs/" + done[i] + "/complete").then().statusCode(200);
        }
        String dead = Jobs.enqueue(Map.of("queue", "ret", "type", "t"));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("ret")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "retryable", false))
                .when().post("/jobs/" + dead + "/fail").then().statusCode(200);
        String live = Jobs.enqueue(Map.of("queue", "ret", "type", "t", "delaySeconds", 3600));

        // more rows than one batch (2): the sweeper keeps going until a batch comes back short
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() ->
                TestDb.count("SELECT count(*) FROM readpast_job_archive") == 0);
        given().when().get("/jobs/" + done[0]).then().statusCode(404);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() ->
                TestDb.count("SELECT count(*) FROM readpast_job_dead") == 0);
        given().when().get("/jobs/" + live).then().statusCode(200).body("status", equalTo("PENDING"));
    }

    @Test
    void finishedBatchesAreDeletedWithTheirJobsAndUnfinishedOnesStay() {
        // finished: one job succeeded, one DEAD (the dead letters keep it 4 s, the batch 3 s)
        JsonPath done = given().contentType(ContentType.JSON).body(Map.of("jobs", List.of(
                        Map.of("queue", "rb", "type", "t"), Map.of("queue", "rb", "type", "t"))))
                .when().post("/batches").then().statusCode(201).extract().jsonPath();
        String finished = done.getString("id");
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("rb"), "limit", 2));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .when().post("/jobs/" + c.getString("jobs[0].id") + "/complete").then().statusCode(200);
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[1].leaseId"), "retryable", false))
                .when().post("/jobs/" + c.getString("jobs[1].id") + "/fail").then().statusCode(200);
        given().when().get("/batches/" + finished).then().statusCode(200).body("state", equalTo("FINISHED"));
        // not finished: a job still to run, and an open batch whose only job is done
        String running = given().contentType(ContentType.JSON).body(Map.of("jobs", List.of(
                        Map.of("queue", "rb-later", "type", "t", "delaySeconds", 3600))))
                .when().post("/batches").then().statusCode(201).extract().path("id");
        String open = given().contentType(ContentType.JSON).body(Map.of("jobs", List.of(
                        Map.of("queue", "rb-open", "type", "t")), "open", true))
                .when().post("/batches").then().statusCode(201).extract().path("id");
        JsonPath o = Jobs.claim(Map.of("workerId", "w", "queues", List.of("rb-open")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", o.getString("jobs[0].leaseId")))
                .when().post("/jobs/" + o.getString("jobs[0].id") + "/complete").then().statusCode(200);

        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() ->
                TestDb.count("SELECT count(*) FROM readpast_batch WHERE id = " + finished) == 0);
        given().when().get("/batches/" + finished).then().statusCode(404);
        // no finished job is left naming the batch that went
        org.junit.jupiter.api.Assertions.assertEquals(0, TestDb.count(
                "SELECT (SELECT count(*) FROM readpast_job_archive WHERE batch_id = " + finished + ") "
                        + "+ (SELECT count(*) FROM readpast_job_dead WHERE batch_id = " + finished + ")"));
        given().when().get("/batches/" + running).then().statusCode(200).body("state", equalTo("RUNNING"));
        given().when().get("/batches/" + open).then().statusCode(200).body("state", equalTo("OPEN"));
    }
}
