package io.readpast;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.readpast.testsupport.Jobs;
import io.readpast.testsupport.TestDb;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * readpast.dependencies.wait-limit (docs/batches.md): a WAITING job whose parents have not all
 * settled that long after its enqueue dies (DEAD) and its batch counts it; jobs that are not
 * waiting, or were released in time, are not touched.
 */
@QuarkusTest
@TestProfile(WaitLimitTest.ShortWaitLimit.class)
class WaitLimitTest {

    public static class ShortWaitLimit implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("readpast.dependencies.wait-limit", "PT2S");
        }
    }

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    private static Map<String, Object> job(String queue, Object payload) {
        return new LinkedHashMap<>(Map.of("queue", queue, "type", "t", "payload", payload));
    }

    private static String status(String job) {
        return given().when().get("/jobs/" + job).then().statusCode(200).extract().path("status");
    }

    @Test
    void aJobWaitingLongerThanTheLimitDiesAndItsBatchCountsIt() {
        // a parent nobody runs, and one that succeeds at once
        String stuck = Jobs.enqueue(job("wl", "stuck"));
        String quick = Jobs.enqueue(job("wl-quick", "quick"));
        Map<String, Object> w = job("wl-w", "W");
        w.put("dependsOn", Map.of("jobs", List.of(stuck)));
        JsonPath b = given().contentType(ContentType.JSON)
                .body(Map.of("jobs", List.of(w), "callback", Map.of("queue", "wl-done", "type", "done")))
                .when().post("/batches").then().statusCode(201).extract().jsonPath();
        String batch = b.getString("id");
        String waiting = b.getString("jobs[0]");
        Map<String, Object> r = job("wl-r", "R");
        r.put("dependsOn", Map.of("jobs", List.of(quick)));
        String released = Jobs.enqueue(r);
        assertEquals("WAITING", status(waiting));
        assertEquals("WAITING", status(released));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("wl-quick")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .when().post("/jobs/" + quick + "/complete").then().statusCode(200);
        assertEquals("PENDING", status(released));

        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> "DEAD".equals(status(waiting)));
        given().when().get("/jobs/" + waiting).then()
                .body("lastError", equalTo("expired: waited longer than readpast.dependencies.wait-limit for its parents"));
        JsonPath done = given().when().get("/batches/" + batch).then().statusCode(200).extract().jsonPath();
        assertEquals("FINISHED", done.getString("state"));
        assertEquals(1, done.getInt("dead"));
        assertNotNull(done.get("firedAt"));
        // the limit is for waiting only: the parent (PENDING all along) and the job released in time stay
        assertEquals("PENDING", status(stuck));
        assertEquals("PENDING", status(released));
    }
}
