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
        long retries = store.contendedClaimRetries();
        java.util.concurrent.CompletableFuture<JsonNode> answer;
        try (java.sql.Connection held = holdQueueRow("cp-held")) {
            answer = java.util.concurrent.CompletableFuture.supplyAsync(() -> claim(List.of("cp-held"), 3));
            // the claim met the held row and is trying again: the other claim commits now
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                    .until(() -> store.contendedClaimRetries() > retries || answer.isDone());
            held.commit();
        }
        assertEquals(3, answer.get(30, java.util.concurrent.TimeUnit.SECONDS).size(),
                "served once the holder committed, not answered empty while the queue had room and work");
        assertTrue(store.contendedClaimRetries() > retries, "it tried again");
    }

    @Test
    void aClaimMeetingACappedQueueWhoseHolderNeverCommitsAnswersWithoutWaitingOnItsLock() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(TestDb.skipsLockedRows(),
                "this engine ignores READPAST and UPDLOCK (Babelfish): a held queue row is waited for, not skipped");
        assertEquals(200, http.send("PUT", "/queues/cp-frozen", Map.of("maxWorkers", 5), Duration.ofSeconds(10)).status());
        assertEquals(201, http.post("/jobs", Map.of("queue", "cp-frozen", "type", "t")).status());
        assertEquals(201, http.post("/jobs", Map.of("queue", "cp-free2", "type", "t")).status());
        long retries = store.contendedClaimRetries();
        try (java.sql.Connection held = holdQueueRow("cp-frozen")) {
            // a holder that froze: the claim gives up on that queue after its retry budget and
            // answers with what the other queue had
            long start = System.nanoTime();
            JsonNode jobs = claim(List.of("cp-frozen", "cp-free2"), 5);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(1, jobs.size(), () -> "the free queue's job only: " + jobs);
            assertEquals("cp-free2", jobs.get(0).get("queue").asText());
            assertTrue(store.contendedClaimRetries() > retries, "it tried again");
            assertTrue(ms < 5_000, "answered after its retry budget, not after the holder: " + ms + " ms");
            held.rollback();
        }
    }
}
