package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Http;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.store.Database;
import io.readpast.store.jdbc.JdbcStores;
import io.readpast.store.Stmt;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which statements a claim runs: the claim alone when no capped queue is in scope, the capped
 * queue lock first otherwise; and a queue capped behind the broker's back (another instance)
 * never gets more than its cap while this broker still thinks it uncapped.
 */
@QuarkusTest
class ClaimPathTest {

    @TestHTTPResource("/")
    URI base;

    @Inject
    Database database;

    @Inject
    io.readpast.core.Wakeups wakeups;

    Http http;
    JdbcStores store;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
        store = database.start();
    }

    private JsonNode claim(List<String> queues, int limit) {
        Http.Reply r = http.post("/claim", Map.of("workerId", "cp", "queues", queues, "limit", limit));
        assertEquals(200, r.status(), () -> String.valueOf(r.body()));
        return r.body().get("jobs");
    }

    @Test
    void aClaimWithNoCappedQueueInScopeRunsTheClaimStatementAlone() {
        assertEquals(200, http.send("PUT", "/queues/cp-capped", Map.of("maxWorkers", 2), Duration.ofSeconds(10)).status());
        assertEquals(201, http.post("/jobs", Map.of("queue", "cp-free", "type", "t")).status());
        claim(List.of("cp-free"), 1);  // reads the list of capped queues after the PUT
        long locks = store.statementsExecuted(Stmt.QUEUE_LOCK_CAPPED);
        long claims = store.statementsExecuted(Stmt.JOB_CLAIM);
        long lists = store.statementsExecuted(Stmt.QUEUE_LIST_CAPPED);
        assertEquals(201, http.post("/jobs", Map.of("queue", "cp-free", "type", "t")).status());
        assertEquals(1, claim(List.of("cp-free"), 5).size());
        assertEquals(locks, store.statementsExecuted(Stmt.QUEUE_LOCK_CAPPED), "no capped-queue lock");
        assertEquals(claims + 1, store.statementsExecuted(Stmt.JOB_CLAIM));
        assertTrue(store.statementsExecuted(Stmt.QUEUE_LIST_CAPPED) <= lists + 1, "the list is read at most once a second");
    }

    @Test
    void aClaimReachingACappedQueueLocksItFirst() {
        assertEquals(200, http.send("PUT", "/queues/cp-capped", Map.of("maxWorkers", 2), Duration.ofSeconds(10)).status());
        for (int i = 0; i < 3; i++) {
            assertEquals(201, http.post("/jobs", Map.of("queue", "cp-capped", "type", "t")).status());
        }
        long locks = store.statementsExecuted(Stmt.QUEUE_LOCK_CAPPED);
        assertEquals(2, claim(List.of("cp-capped", "cp-free"), 5).size(), "the cap, right after the PUT");
        assertEquals(locks + 1, store.statementsExecuted(Stmt.QUEUE_LOCK_CAPPED));
        // every queue (no filter) includes the capped one too
        http.post("/claim", Map.of("workerId", "cp", "limit", 5));
        assertEquals(locks + 2, store.statementsExecuted(Stmt.QUEUE_LOCK_CAPPED));
    }

    @Test
    void aQueueCappedByAnotherInstanceNeverExceedsItsCapAndIsClaimedFromSoon() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertEquals(201, http.post("/jobs", Map.of("queue", "cp-elsewhere", "type", "t")).status());
        }
        assertEquals(1, claim(List.of("cp-elsewhere"), 1).size());  // this broker now knows it uncapped
        // another instance caps the queue (its PUT is not seen by this broker's list)
        assertEquals(1, TestDb.update("UPDATE readpast_queue SET max_workers = 2 WHERE name = 'cp-elsewhere'"));
        AtomicInteger leased = new AtomicInteger(1);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            leased.addAndGet(claim(List.of("cp-elsewhere"), 5).size());
            assertTrue(TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'cp-elsewhere' AND status IN (1, 2)") <= 2,
                    "never more than the cap leased");
            return leased.get() == 2;
        });
        // full: nothing more, however often it is asked
        for (int i = 0; i < 20; i++) {
            assertEquals(0, claim(List.of("cp-elsewhere"), 5).size());
        }
        assertEquals(2, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'cp-elsewhere' AND status IN (1, 2)"));
    }

    /** A claim transaction in progress on the capped queue: its row held, as queue_lock_capped holds it. */
    private java.sql.Connection holdQueueRow(String queue) throws java.sql.SQLException {
        java.sql.Connection held = TestDb.dataSource().getConnection();
        held.setAutoCommit(false);
        List<String> locked = store.sql().query(held, Stmt.QUEUE_LOCK_CAPPED,
                io.readpast.store.Params.of().str("queues", "[\"" + queue + "\"]").integer("limit", 1),
                (rs, cols) -> rs.getBoolean(cols.get("locked")) ? rs.getString(cols.get("name")) : "not locked");
        assertEquals(List.of(queue), locked, "the other claim holds the queue's row");
        return held;
    }

    @Test
    void aClaimMeetingACappedQueueHeldByAnotherClaimTriesAgainAndIsServedOnceThatOneCommits() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(TestDb.skipsLockedRows(),
                "this engine ignores READPAST and UPDLOCK (Babelfish): a held queue row is waited for, not skipped");
        assertEquals(200, http.send("PUT", "/queues/cp-held", Map.of("maxWorkers", 5), Duration.ofSeconds(10)).status());
        for (int i = 0; i < 3; i++) {
            assertEquals(201, http.post("/jobs", Map.of("queue", "cp-held", "type", "t")).status());
        }
        long retries = store.jobs().contendedClaimRetries();
        java.util.concurrent.CompletableFuture<JsonNode> answer;
        try (java.sql.Connection held = holdQueueRow("cp-held")) {
            answer = java.util.concurrent.CompletableFuture.supplyAsync(() -> claim(List.of("cp-held"), 3));
            // the claim met the held row and is trying again: the other claim commits now
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                    .until(() -> store.jobs().contendedClaimRetries() > retries || answer.isDone());
            held.commit();
        }
        assertEquals(3, answer.get(30, java.util.concurrent.TimeUnit.SECONDS).size(),
                "served once the holder committed, not answered empty while the queue had room and work");
        assertTrue(store.jobs().contendedClaimRetries() > retries, "it tried again");
    }

    @Test
    void aLongPollMeetingAHeldCappedQueuePastTheRetryBudgetClaimsAgainWithinItsWaitAndIsServed() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(TestDb.skipsLockedRows(),
                "this engine ignores READPAST and UPDLOCK (Babelfish): a held queue row is waited for, not skipped");
        assertEquals(200, http.send("PUT", "/queues/cp-held-long", Map.of("maxWorkers", 5), Duration.ofSeconds(10))
                .status());
        for (int i = 0; i < 3; i++) {
            assertEquals(201, http.post("/jobs", Map.of("queue", "cp-held-long", "type", "t")).status());
        }
        double metricBefore = contendedMetric();
        long retries = store.jobs().contendedClaimRetries();
        java.util.concurrent.CompletableFuture<Http.Reply> answer;
        try (java.sql.Connection held = holdQueueRow("cp-held-long")) {
            answer = java.util.concurrent.CompletableFuture.supplyAsync(() -> http.send("POST", "/claim",
                    Map.of("workerId", "cp", "queues", List.of("cp-held-long"), "limit", 3, "waitSeconds", 20),
                    Duration.ofSeconds(30)));
            // a 100 ms budget holds at most about 20 tries (pauses of 0.2 ms doubling to 8 ms):
            // past 60 the claim has spent its budget at least twice over and is still at it,
            // never waiting for an announcement: the holder's commit announces nothing (before
            // long-polls claimed again, this one slept between the due poll's once-a-second
            // looks, and a 1 s wait could end empty while the queue had room)
            java.util.concurrent.atomic.AtomicInteger slept = new java.util.concurrent.atomic.AtomicInteger();
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(2))
                    .until(() -> {
                        slept.accumulateAndGet(wakeups.waiting(), Math::max);
                        return store.jobs().contendedClaimRetries() - retries > 60 || answer.isDone();
                    });
            assertTrue(!answer.isDone(), () -> "still trying while the row is held, not answered: " + answer.join());
            assertEquals(0, slept.get(), "the long-poll never waited for an announcement while the row was held");
            held.commit();
        }
        long start = System.nanoTime();
        Http.Reply r = answer.get(30, java.util.concurrent.TimeUnit.SECONDS);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(200, r.status(), () -> String.valueOf(r.body()));
        assertEquals(3, r.body().get("jobs").size(), () -> "served once the holder committed: " + r.body());
        assertTrue(ms < 10_000, "served soon after the holder's commit, not at the wait's end: " + ms + " ms");
        assertTrue(contendedMetric() >= metricBefore + 60,
                "readpast_claim_contended_retries_total counts the tries: " + contendedMetric());
    }

    private double contendedMetric() {
        String text = io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString();
        for (String line : text.split("\n")) {
            if (line.startsWith("readpast_claim_contended_retries_total")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no readpast_claim_contended_retries_total in /q/metrics");
    }

    @Test
    void aClaimMeetingACappedQueueWhoseHolderNeverCommitsAnswersWithoutWaitingOnItsLock() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(TestDb.skipsLockedRows(),
                "this engine ignores READPAST and UPDLOCK (Babelfish): a held queue row is waited for, not skipped");
        assertEquals(200, http.send("PUT", "/queues/cp-frozen", Map.of("maxWorkers", 5), Duration.ofSeconds(10)).status());
        assertEquals(201, http.post("/jobs", Map.of("queue", "cp-frozen", "type", "t")).status());
        assertEquals(201, http.post("/jobs", Map.of("queue", "cp-free2", "type", "t")).status());
        long retries = store.jobs().contendedClaimRetries();
        try (java.sql.Connection held = holdQueueRow("cp-frozen")) {
            // a holder that froze: the claim gives up on that queue after its retry budget and
            // answers with what the other queue had
            long start = System.nanoTime();
            JsonNode jobs = claim(List.of("cp-frozen", "cp-free2"), 5);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(1, jobs.size(), () -> "the free queue's job only: " + jobs);
            assertEquals("cp-free2", jobs.get(0).get("queue").asText());
            assertTrue(store.jobs().contendedClaimRetries() > retries, "it tried again");
            assertTrue(ms < 5_000, "answered after its retry budget, not after the holder: " + ms + " ms");
            held.rollback();
        }
    }
}
