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
}
