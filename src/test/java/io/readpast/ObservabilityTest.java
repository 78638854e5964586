package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Jobs;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.ops.QueueGauges;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Metrics, health and request ids. */
@QuarkusTest
class ObservabilityTest {

    /** In process only: null against the packaged artifact (the tests that need it are disabled there). */
    QueueGauges gauges = TestDb.bean(QueueGauges.class);

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it refreshes the in-process queue gauges")
    void prometheusMetricsCountJobsPerQueueAndTimeClaims() {
        String id = Jobs.enqueue(Map.of("queue", "obs", "type", "t"));
        Jobs.enqueue(Map.of("queue", "obs", "type", "t"));
        var c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("obs")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .post("/jobs/" + id + "/complete").then().statusCode(200);
        gauges.refresh();
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        for (String expected : List.of(
                "readpast_jobs_enqueued_total{queue=\"obs\"} 2.0",
                "readpast_jobs_claimed_total{queue=\"obs\"} 1.0",
                "readpast_jobs_completed_total{queue=\"obs\"} 1.0",
                "readpast_queue_pending{queue=\"obs\"} 1.0",
                "readpast_queue_lag_seconds{queue=\"obs\"}",
                "readpast_claim_duration_seconds_bucket",
                "readpast_claim_batch_size_bucket",
                "agroal_")) {
            assertTrue(metrics.contains(expected), "metrics show " + expected);
        }
    }

    @Test
    void aFailureCountsAsFailedOnlyWhenTheJobGoesBackForARetry() {
        String queue = "obs-fail-" + System.nanoTime();
        String retried = Jobs.enqueue(Map.of("queue", queue, "type", "t", "priority", 1));
        String fatal = Jobs.enqueue(Map.of("queue", queue, "type", "t"));
        var c = Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue), "limit", 2));
        assertEquals(List.of(retried, fatal), c.getList("jobs.id"));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", "x"))
                .post("/jobs/" + retried + "/fail").then().statusCode(200).body("status", equalTo("PENDING"));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[1].leaseId"), "error", "x",
                "retryable", false)).post("/jobs/" + fatal + "/fail").then().statusCode(200)
                .body("status", equalTo("DEAD"));
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("readpast_jobs_failed_total{queue=\"" + queue + "\"} 1.0"), "one retry");
        assertTrue(metrics.contains("readpast_jobs_dead_total{queue=\"" + queue + "\"} 1.0"), "one dead");
        assertTrue(metrics.contains("# HELP readpast_jobs_failed Failures reported by workers that sent the "
                + "job back for another attempt"), "the help text says what failed counts");
    }

    @Test
    void healthReportsLivenessAndDatabaseReadiness() {
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.name", hasItem("readpast-database"));
    }

    /** The highest V<n> migration this build carries for the engine under test. */
    static String latestMigration() throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Path.of("src/main/resources/db/migration",
                TestDb.engine().datasourceName());
        try (var files = java.nio.file.Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.matches("V\\d+__.*\\.sql"))
                    .map(n -> Integer.parseInt(n.substring(1, n.indexOf("__"))))
                    .max(Integer::compare).map(String::valueOf).orElseThrow();
        }
    }

    @Test
    void readinessAsksFlywayWhetherEveryMigrationIsApplied() throws Exception {
        String latest = latestMigration();
        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'readpast-database' }.data.schemaVersion", equalTo(latest))
                .body("checks.find { it.name == 'readpast-database' }.data.migrations", equalTo("applied"));
        // Flyway's history now says the latest migration failed: not ready, and it says why
        String mark = TestDb.engine() == io.readpast.config.Engine.SQLSERVER ? "0" : "false";
        String undo = TestDb.engine() == io.readpast.config.Engine.SQLSERVER ? "1" : "true";
        try {
            assertEquals(1, TestDb.update("UPDATE flyway_schema_history SET success = " + mark + " WHERE version = '"
                    + latest + "'"));
            given().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"))
                    .body("checks.find { it.name == 'readpast-database' }.data.reason",
                            equalTo("migration failed: V" + latest));
        } finally {
            assertEquals(1, TestDb.update("UPDATE flyway_schema_history SET success = " + undo + " WHERE version = '"
                    + latest + "'"));
        }
        given().get("/q/health/ready").then().statusCode(200);
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the log records (with their MDC) in process")
    void operatorActionsAreLoggedWithTheRequestId() {
        java.util.List<org.jboss.logmanager.ExtLogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        org.jboss.logmanager.ExtHandler capture = new org.jboss.logmanager.ExtHandler() {
            @Override
            protected void doPublish(org.jboss.logmanager.ExtLogRecord record) {
                record.copyAll();   // take the MDC of the thread that logged, not of whoever reads it later
                records.add(record);
            }
        };
        org.jboss.logmanager.Logger root = org.jboss.logmanager.Logger.getLogger("");
        root.addHandler(capture);
        try {
            String id = Jobs.enqueue(Map.of("queue", "audit", "type", "t"));
            given().header("X-Request-Id", "req-audit-1").post("/jobs/" + id + "/cancel").then().statusCode(200);
            given().header("X-Request-Id", "req-audit-2").post("/queues/audit/pause").then().statusCode(200);
        } finally {
            root.removeHandler(capture);
        }
        var cancel = records.stream().filter(r -> r.getFormattedMessage().contains("cancelled by anonymous")).findFirst();
        assertTrue(cancel.isPresent(), "the cancel is logged");
        org.junit.jupiter.api.Assertions.assertEquals("req-audit-1", cancel.get().getMdc("requestId"));
        var pause = records.stream().filter(r -> r.getFormattedMessage().contains("Queue audit paused")).findFirst();
        assertTrue(pause.isPresent(), "the pause is logged");
        org.junit.jupiter.api.Assertions.assertEquals("req-audit-2", pause.get().getMdc("requestId"));
    }

    @Test
    void everyResponseCarriesARequestId() {
        given().get("/queues").then().header("X-Request-Id", matchesPattern("[0-9a-f-]{36}"));
        given().header("X-Request-Id", "abc-123").get("/jobs/999999").then().statusCode(404)
                .header("X-Request-Id", "abc-123");
        given().header("X-Request-Id", "bad id with spaces").get("/queues").then()
                .header("X-Request-Id", matchesPattern("[0-9a-f-]{36}"));
    }
}
