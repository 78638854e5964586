package io.readpast;

import io.readpast.testsupport.TestDb;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.core.HousekeepingTask;
import io.readpast.store.MaintenanceStore;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Housekeeping deletes old fire records, run-out uniqueness keys, old deliveries and the per-key
 * window counts of fair queues that count nothing any more, and nothing else.
 */
@QuarkusTest
class HousekeepingTest {

    @Inject
    HousekeepingTask housekeeping;

    @Inject
    MaintenanceStore store;

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    @Test
    void onlyRowsPastTheirRetentionGo() {
        Instant now = store.dbNow();
        Object old = TestDb.time(now.minus(Duration.ofDays(40)));
        Object recent = TestDb.time(now.minus(Duration.ofMinutes(1)));
        Object future = TestDb.time(now.plus(Duration.ofHours(1)));
        TestDb.exec("INSERT INTO readpast_schedule_fire (schedule_name, slot_at, outcome, fired_at) VALUES ('s', ?, 1, ?)", old, old);
        TestDb.exec("INSERT INTO readpast_schedule_fire (schedule_name, slot_at, outcome, fired_at) VALUES ('s', ?, 1, ?)",
                recent, recent);
        TestDb.exec("INSERT INTO readpast_unique_key (unique_key, job_id, expires_at) VALUES ('h:old', 1, ?)", recent);
        TestDb.exec("INSERT INTO readpast_unique_key (unique_key, job_id, expires_at) VALUES ('h:live', 2, ?)", future);
        for (int status : new int[] {2, 3, 0}) {
            // delivered, dead and pending, each once old and once recent
            for (Object at : new Object[] {old, recent}) {
                TestDb.exec("INSERT INTO readpast_webhook (job_id, queue, event, url, status, due_at, updated_at) "
                        + "VALUES (1, 'q', 'job.succeeded', 'http://127.0.0.1/', ?, ?, ?)", status, at, at);
            }
        }
        int deleted = housekeeping.runOnce();
        assertEquals(4, deleted, "the old fire record, the run-out key, the old delivered and the old dead delivery");
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_schedule_fire"));
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_unique_key WHERE unique_key = 'h:live'"));
        assertEquals(4, TestDb.count("SELECT count(*) FROM readpast_webhook"));
        assertEquals(2, TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 0"), "pending ones stay");
        assertEquals(0, housekeeping.runOnce());
    }

    /**
     * Review 2's L7: a fair queue's per-key window counts (readpast_key_rate) are deleted once
     * their window has passed, or once their queue no longer limits its keys; the current
     * window's stay (the claim reads them).
     */
    @Test
    void perKeyWindowCountsGoOnceTheyCountNothing() {
        TestDb.exec("DELETE FROM readpast_key_rate");  // (TestDb.clean leaves this table alone)
        io.restassured.RestAssured.given().contentType(io.restassured.http.ContentType.JSON)
                .body("{\"keyRateLimit\":5,\"keyRatePeriodSeconds\":86400}").put("/queues/kr").then().statusCode(200);
        io.restassured.RestAssured.given().contentType(io.restassured.http.ContentType.JSON)
                .body("{}").put("/queues/kr-plain").then().statusCode(200);
        long window = store.dbNow().toEpochMilli() / 86_400_000L;
        TestDb.exec("INSERT INTO readpast_key_rate (queue, fairness_key, rate_window, claims) VALUES ('kr', 'old', ?, 3)",
                window - 1);
        TestDb.exec("INSERT INTO readpast_key_rate (queue, fairness_key, rate_window, claims) VALUES ('kr', 'now', ?, 2)",
                window);
        TestDb.exec("INSERT INTO readpast_key_rate (queue, fairness_key, rate_window, claims) VALUES ('kr-plain', 'x', ?, 1)",
                window);
        assertEquals(2, housekeeping.runOnce(), "the passed window's count and the count of a queue without the limit");
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_key_rate"));
        assertEquals(2, TestDb.count("SELECT claims FROM readpast_key_rate WHERE queue = 'kr' AND fairness_key = 'now'"),
                "the current window's count stays");
        assertEquals(0, housekeeping.runOnce());
    }
}
