package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Http;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Competing consumers, skip-don't-wait, and the max-workers cap, through HTTP. */
@QuarkusTest
class ConcurrencyTest {

    /**
     * Longest a claim may take while another transaction holds a row it would want: far above a
     * claim's own cost (milliseconds), far below the HTTP timeout a waiting claim would run into.
     */
    private static final long WAIT_LIMIT_MS = 2_000;

    @TestHTTPResource("/")
    URI base;

    Http http;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    private List<String> enqueueMany(String queue, int n, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<String>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int k = i;
                futures.add(pool.submit(() -> {
                    Http.Reply r = http.post("/jobs", Map.of("queue", queue, "type", "t", "payload", Map.of("k", k),
                            "priority", k % 3));
                    assertEquals(201, r.status(), () -> String.valueOf(r.body()));
                    return r.body().get("id").asText();
                }));
            }
            List<String> ids = new ArrayList<>();
            for (Future<String> f : futures) {
                ids.add(f.get(60, TimeUnit.SECONDS));
            }
            return ids;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void competingConsumersClaimEveryJobExactlyOnce() throws Exception {
        int jobs = 2000;
        int claimers = 8;
        Set<String> enqueued = Set.copyOf(enqueueMany("race", jobs, 4));
        assertEquals(jobs, enqueued.size());

        Map<String, AtomicInteger> claims = new ConcurrentHashMap<>();
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger conflicts = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(claimers);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < claimers; w++) {
            String worker = "w" + w;
            workers.add(pool.submit(() -> {
                int emptyInARow = 0;
                while (emptyInARow < 3) {
                    Http.Reply r = http.post("/claim", Map.of("workerId", worker, "queues", List.of("race"),
                            "limit", 7, "leaseSeconds", 120));
                    assertEquals(200, r.status(), () -> String.valueOf(r.body()));
                    JsonNode list = r.body().get("jobs");
                    emptyInARow = list.isEmpty() ? emptyInARow + 1 : 0;
                    for (JsonNode job : list) {
                        String id = job.get("id").asText();
                        claims.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                        Http.Reply done = http.post("/jobs/" + id + "/complete",
                                Map.of("leaseId", job.get("leaseId").asText(), "result", Map.of("by", worker)));
                        if (done.status() == 200) {
                            completed.incrementAndGet();
                        } else {
                            conflicts.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get(5, TimeUnit.MINUTES);
        }
        pool.shutdownNow();

        assertEquals(enqueued, claims.keySet(), "every job was claimed");
        assertTrue(claims.values().stream().allMatch(c -> c.get() == 1), "no job was claimed twice");
        assertEquals(jobs, completed.get());
        assertEquals(0, conflicts.get());
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"));
        assertEquals(jobs, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE status = 3"));
    }

    @Test
    void claimSkipsRowsAnotherTransactionHoldsInsteadOfWaiting() throws Exception {
        assumeTrue(TestDb.skipsLockedRows(), "this engine ignores READPAST (Babelfish): claims wait instead of skipping");
        String top = http.post("/jobs", Map.of("queue", "skip", "type", "t", "priority", 10)).body().get("id").asText();
        String next = http.post("/jobs", Map.of("queue", "skip", "type", "t", "priority", 5)).body().get("id").asText();
        String lockSql = TestDb.engine() == Engine.SQLSERVER
                ? "SELECT id FROM readpast_job WITH (UPDLOCK, ROWLOCK) WHERE id = ?"
                : "SELECT id FROM readpast_job WHERE id = ? FOR UPDATE";
        try (Connection holder = TestDb.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (PreparedStatement ps = holder.prepareStatement(lockSql)) {
                ps.setLong(1, Long.parseLong(top));
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next(), "the holder locked the top job");
                }
            }
            // The top job's row is locked by an open transaction that ends only after these claims:
            // a claim that waited for the lock would not answer before the HTTP timeout. Each must
            // answer well within WAIT_LIMIT_MS (a claim on an idle broker takes milliseconds).
            long started = System.nanoTime();
            Http.Reply r = http.send("POST", "/claim", Map.of("workerId", "w", "queues", List.of("skip")),
                    Duration.ofSeconds(10));
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertEquals(200, r.status());
            assertEquals(1, r.body().get("jobs").size());
            assertEquals(next, r.body().get("jobs").get(0).get("id").asText(), "the claim took the next job");
            assertTrue(tookMs < WAIT_LIMIT_MS, "the claim skipped the locked row instead of waiting: it took "
                    + tookMs + " ms");
            assertTrue(!holder.isClosed() && !holder.getAutoCommit(), "the lock was still held during the claim");
            // nothing else is claimable while the top row stays locked, and finding that out does not wait either
            started = System.nanoTime();
            Http.Reply empty = http.send("POST", "/claim", Map.of("workerId", "w", "queues", List.of("skip")),
                    Duration.ofSeconds(10));
            long emptyMs = (System.nanoTime() - started) / 1_000_000;
            assertEquals(0, empty.body().get("jobs").size());
            assertTrue(emptyMs < WAIT_LIMIT_MS, "the empty claim did not wait for the lock: it took " + emptyMs + " ms");
            System.out.printf("claims with the top row locked returned in %d ms and %d ms%n", tookMs, emptyMs);
            holder.rollback();
        }
        Http.Reply after = http.post("/claim", Map.of("workerId", "w", "queues", List.of("skip")));
        assertEquals(top, after.body().get("jobs").get(0).get("id").asText(), "released row is claimable again");
    }

    @Test
    void maxWorkersIsNeverExceededUnderConcurrentClaims() throws Exception {
        int cap = 3;
        int jobs = 60;
        Http.Reply put = http.send("PUT", "/queues/capped", Map.of("maxWorkers", cap), Duration.ofSeconds(10));
        assertEquals(200, put.status(), () -> String.valueOf(put.body()));
        enqueueMany("capped", jobs, 4);
        // uncapped traffic at the same time must keep flowing
        enqueueMany("free", 20, 4);

        // Phase 1: many concurrent claims, nobody completes: exactly `cap` jobs get leased.
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger leased = new AtomicInteger();
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            String worker = "w" + w;
            fs.add(pool.submit(() -> {
                for (int i = 0; i < 10; i++) {
                    Http.Reply r = http.post("/claim", Map.of("workerId", worker, "queues", List.of("capped"), "limit", 5));
                    assertEquals(200, r.status());
                    leased.addAndGet(r.body().get("jobs").size());
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get(2, TimeUnit.MINUTES);
        }
        assertEquals(cap, leased.get(), "exactly maxWorkers jobs were leased");
        assertEquals(cap, activeIn("capped"));
        Http.Reply free = http.post("/claim", Map.of("workerId", "x", "limit", 100));
        assertEquals(20, free.body().get("jobs").size(), "uncapped queue is unaffected; capped queue is full");

        // Phase 2: workers claim and complete concurrently while a sampler watches the count.
        AtomicLong maxSeen = new AtomicLong();
        AtomicInteger done = new AtomicInteger();
        var sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> maxSeen.accumulateAndGet(activeIn("capped"), Math::max),
                0, 5, TimeUnit.MILLISECONDS);
        // first let the phase-1 leases go
        releaseAll("capped");
        fs.clear();
        for (int w = 0; w < 8; w++) {
            String worker = "c" + w;
            fs.add(pool.submit(() -> {
                int empty = 0;
                while (done.get() < jobs && empty < 200) {
                    Http.Reply r = http.post("/claim", Map.of("workerId", worker, "queues", List.of("capped"), "limit", 2));
                    JsonNode list = r.body().get("jobs");
                    empty = list.isEmpty() ? empty + 1 : 0;
                    for (JsonNode job : list) {
                        Http.Reply c = http.post("/jobs/" + job.get("id").asText() + "/complete",
                                Map.of("leaseId", job.get("leaseId").asText()));
                        assertEquals(200, c.status());
                        done.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get(3, TimeUnit.MINUTES);
        }
        sampler.shutdownNow();
        sampler.awaitTermination(5, TimeUnit.SECONDS);
        pool.shutdownNow();
        assertEquals(jobs, done.get(), "every capped job completed");
        assertTrue(maxSeen.get() <= cap, "leased+processing never exceeded maxWorkers; saw " + maxSeen.get());
        assertTrue(maxSeen.get() > 0, "the sampler saw work in flight");
    }

    private static long activeIn(String queue) {
        return TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = ? AND status IN (1, 2)", queue);
    }

    private void releaseAll(String queue) {
        // The test's phase-1 leases: release them through the API with their lease ids.
        String sql = "SELECT id, lease_id FROM readpast_job WHERE queue = ? AND status IN (1, 2)";
        List<String[]> leases = new ArrayList<>();
        try (Connection c = TestDb.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    leases.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        for (String[] l : leases) {
            assertEquals(200, http.post("/jobs/" + l[0] + "/release", Map.of("leaseId", l[1].toLowerCase())).status());
        }
    }
}
