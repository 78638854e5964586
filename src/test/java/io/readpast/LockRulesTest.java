package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Http;
import io.readpast.testsupport.Jobs;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;
import io.readpast.store.Database;
import io.readpast.store.jdbc.JdbcStores;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The lock rules of the claim path (reviews/tsql-review.md and the fault battery), through HTTP:
 * a claim never waits for a lock another transaction holds, on a queue row or a job row, so a
 * frozen lock holder stalls nothing; and the traffic shapes that deadlocked on SQL Server
 * (ack-and-claim on a capped queue, H1; over ordered groups, H4; queue settings writes during
 * traffic, H5; the expiry sweeper against claims, M5) run with no deadlock and no lock timeout
 * (the store counts every transient failure it meets). They hold on PostgreSQL and SQL Server;
 * Babelfish ignores the locking hints, so there claims wait instead of skipping and these skip.
 */
@QuarkusTest
class LockRulesTest {

    /** Longest a claim may take while another transaction holds a lock it would want. */
    private static final long ANSWER_MS = 1_000;

    @TestHTTPResource("/")
    URI base;

    @Inject
    Database database;

    Http http;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    private JdbcStores store() {
        return database.start();
    }

    private static void skipOnEnginesThatIgnoreHints() {
        assumeTrue(TestDb.skipsLockedRows(), "this engine ignores READPAST and UPDLOCK (Babelfish): claims wait "
                + "instead of skipping, so the lock rules cannot be shown here");
    }

    private void enqueue(String queue, int n, Map<String, Object> extra) {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, Object> job = new java.util.HashMap<>(Map.of("queue", queue, "type", "t", "payload", Map.of("i", i)));
            job.putAll(extra);
            jobs.add(job);
        }
        for (int from = 0; from < n; from += 500) {
            Http.Reply r = http.post("/jobs/batch", Map.of("jobs", jobs.subList(from, Math.min(n, from + 500))));
            assertEquals(200, r.status(), () -> String.valueOf(r.body()));
        }
    }

    private record Timed(Http.Reply reply, long ms) {
    }

    private Timed claim(Map<String, Object> body) {
        long start = System.nanoTime();
        Http.Reply r = http.send("POST", "/claim", body, Duration.ofSeconds(30));
        return new Timed(r, (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * A second connection holds a capped queue's row, with an update lock (a claim in progress,
     * or a broker frozen in one) and then with an exclusive lock (a settings change). Claims on
     * that queue, claims naming no queue (so it is in scope) and claims on other queues all
     * answer within a second, more of them at once than the claim gate has slots; the held queue
     * is simply left out until the lock goes.
     */
    @Test
    void claimsNeverQueueBehindAHeldQueueRow() throws Exception {
        skipOnEnginesThatIgnoreHints();
        assertEquals(200, http.send("PUT", "/queues/held", Map.of("maxWorkers", 50), Duration.ofSeconds(10)).status());
        enqueue("held", 40, Map.of());
        enqueue("open", 40, Map.of());
        String[] locks = TestDb.engine() == Engine.SQLSERVER
                ? new String[] {"SELECT name FROM readpast_queue WITH (UPDLOCK, ROWLOCK) WHERE name = 'held'",
                        "UPDATE readpast_queue SET updated_at = updated_at WHERE name = 'held'"}
                : new String[] {"SELECT name FROM readpast_queue WHERE name = 'held' FOR UPDATE",
                        "UPDATE readpast_queue SET updated_at = updated_at WHERE name = 'held'"};
        ExecutorService pool = Executors.newFixedThreadPool(12);
        try {
            for (String lock : locks) {
                try (Connection holder = TestDb.dataSource().getConnection()) {
                    holder.setAutoCommit(false);
                    try (PreparedStatement ps = holder.prepareStatement(lock)) {
                        ps.execute();
                    }
                    List<Future<Timed>> claims = new ArrayList<>();
                    for (int i = 0; i < 12; i++) {
                        Map<String, Object> body = switch (i % 3) {
                            case 0 -> Map.of("workerId", "w" + i, "limit", 2);
                            case 1 -> Map.of("workerId", "w" + i, "queues", List.of("held"), "limit", 2);
                            default -> Map.of("workerId", "w" + i, "queues", List.of("open"), "limit", 2);
                        };
                        claims.add(pool.submit(() -> claim(body)));
                    }
                    int open = 0;
                    for (Future<Timed> f : claims) {
                        Timed t = f.get(60, TimeUnit.SECONDS);
                        assertEquals(200, t.reply().status(), () -> String.valueOf(t.reply().body()));
                        assertTrue(t.ms() < ANSWER_MS, "a claim waited for the held queue row (" + lock + "): "
                                + t.ms() + " ms");
                        for (JsonNode job : t.reply().body().get("jobs")) {
                            assertEquals("open", job.get("queue").asText(), "nothing taken from the held queue");
                            open++;
                        }
                    }
                    assertTrue(open > 0, "claims on other queues were served");
                    assertTrue(!holder.isClosed() && !holder.getAutoCommit(), "the lock was held throughout");
                    holder.rollback();
                }
                Timed after = claim(Map.of("workerId", "after", "queues", List.of("held"), "limit", 2));
                assertEquals(2, after.reply().body().get("jobs").size(), "once the lock is gone the queue is claimed again");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A fair claim never waits either: a second connection holds the best two rows of key "a"
     * (a claim in progress elsewhere), then the queue's row too (a claim moving the cursor, or a
     * settings change). Claims answer at once, never with a held row: with the rows held, each
     * key is served from the rest; with the queue row held as well, PostgreSQL's claim goes
     * on without moving the cursor and SQL Server's leaves the queue alone, as its statement says.
     */
    @Test
    void aFairClaimSkipsHeldRowsAndNeverWaitsForItsQueueRow() throws Exception {
        skipOnEnginesThatIgnoreHints();
        assertEquals(200, http.send("PUT", "/queues/fair-held", Map.of("fairness", "round-robin"), Duration.ofSeconds(10)).status());
        enqueue("fair-held", 4, Map.of("fairnessKey", "a"));
        enqueue("fair-held", 4, Map.of("fairnessKey", "b"));
        List<Long> held = new ArrayList<>();
        try (Connection c = TestDb.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT id FROM readpast_job WHERE queue = 'fair-held' "
                     + "AND fairness_key = 'a' ORDER BY id")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next() && held.size() < 2) {
                    held.add(rs.getLong(1));
                }
            }
        }
        String rows = "readpast_job" + (TestDb.engine() == Engine.SQLSERVER ? " WITH (UPDLOCK, ROWLOCK)" : "")
                + " WHERE id IN (" + held.get(0) + ", " + held.get(1) + ")";
        String queueRow = TestDb.engine() == Engine.SQLSERVER
                ? "SELECT name FROM readpast_queue WITH (UPDLOCK, ROWLOCK) WHERE name = 'fair-held'"
                : "SELECT name FROM readpast_queue WHERE name = 'fair-held' FOR UPDATE";
        try (Connection holder = TestDb.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (PreparedStatement ps = holder.prepareStatement("SELECT id FROM " + rows
                    + (TestDb.engine() == Engine.SQLSERVER ? "" : " FOR UPDATE"))) {
                ps.executeQuery().close();
            }
            Timed first = claim(Map.of("workerId", "f1", "queues", List.of("fair-held"), "limit", 4));
            assertEquals(200, first.reply().status(), () -> String.valueOf(first.reply().body()));
            assertTrue(first.ms() < ANSWER_MS, "the fair claim waited for held rows: " + first.ms() + " ms");
            Map<String, Integer> perKey = new java.util.HashMap<>();
            for (JsonNode job : first.reply().body().get("jobs")) {
                assertFalse(held.contains(job.get("id").asLong()), "a held row was leased: " + job);
                perKey.merge(job.get("fairnessKey").asText(), 1, Integer::sum);
            }
            // (the share is 2 on SQL Server; a fresh fair queue's first claim on PostgreSQL takes one row a key)
            assertTrue(perKey.getOrDefault("a", 0) >= 1 && perKey.getOrDefault("b", 0) >= 1,
                    "each key served, key a from the rows not held: " + perKey);
            try (PreparedStatement ps = holder.prepareStatement(queueRow)) {
                ps.executeQuery().close();
            }
            Timed second = claim(Map.of("workerId", "f2", "queues", List.of("fair-held"), "limit", 4));
            assertEquals(200, second.reply().status(), () -> String.valueOf(second.reply().body()));
            assertTrue(second.ms() < ANSWER_MS, "the fair claim waited for its queue row: " + second.ms() + " ms");
            for (JsonNode job : second.reply().body().get("jobs")) {
                assertFalse(held.contains(job.get("id").asLong()), "a held row was leased: " + job);
            }
            assertTrue(!holder.isClosed() && !holder.getAutoCommit(), "the locks were held throughout");
            holder.rollback();
        }
        Set<Long> after = new java.util.HashSet<>();
        for (int i = 0; i < 3 && after.size() < 2; i++) {
            for (JsonNode job : claim(Map.of("workerId", "f3", "queues", List.of("fair-held"), "limit", 4)).reply().body().get("jobs")) {
                after.add(job.get("id").asLong());
            }
        }
        assertTrue(after.containsAll(held), "once let go, the held rows are claimed: " + after + " of " + held);
    }

    /**
     * A bulk cancel skips a job row another transaction holds (a claim taking a pending job, a
     * worker's acknowledgement of a leased one) and counts it as skipped, instead of waiting for
     * it (issue 44: READPAST / SKIP LOCKED); once the lock is gone the same call again cancels
     * the one and flags the other.
     */
    @Test
    void aBulkCancelSkipsHeldRowsAndCountsThemInsteadOfWaiting() throws Exception {
        skipOnEnginesThatIgnoreHints();
        enqueue("bulk-held", 4, Map.of());
        Http.Reply leased = http.post("/claim", Map.of("workerId", "w", "queues", List.of("bulk-held"), "limit", 1));
        assertEquals(200, leased.status(), () -> String.valueOf(leased.body()));
        long leasedId = leased.body().get("jobs").get(0).get("id").asLong();
        long pendingId = TestDb.count("SELECT MIN(id) FROM readpast_job WHERE queue = 'bulk-held' AND status = 0");
        String rows = "readpast_job" + (TestDb.engine() == Engine.SQLSERVER ? " WITH (UPDLOCK, ROWLOCK)" : "")
                + " WHERE id IN (" + pendingId + ", " + leasedId + ")";
        Map<String, Object> cancel = Map.of("action", "cancel", "filter", Map.of("queue", "bulk-held"), "limit", 100);
        try (Connection holder = TestDb.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (PreparedStatement ps = holder.prepareStatement("SELECT id FROM " + rows
                    + (TestDb.engine() == Engine.SQLSERVER ? "" : " FOR UPDATE"))) {
                ps.executeQuery().close();
            }
            long start = System.nanoTime();
            Http.Reply r = http.send("POST", "/jobs/bulk", cancel, Duration.ofSeconds(30));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(200, r.status(), () -> String.valueOf(r.body()));
            assertTrue(ms < ANSWER_MS, "the bulk cancel waited for held rows: " + ms + " ms");
            assertEquals(4, r.body().get("matched").asInt(), r.body()::toString);
            assertEquals(4, r.body().get("eligible").asInt(), r.body()::toString);
            assertEquals(2, r.body().get("changed").asInt(), r.body()::toString);
            assertEquals(2, r.body().get("skipped").asInt(), r.body()::toString);
            assertTrue(!holder.isClosed() && !holder.getAutoCommit(), "the locks were held throughout");
            holder.rollback();
        }
        Http.Reply pending = http.send("GET", "/jobs/" + pendingId, null, Duration.ofSeconds(10));
        assertEquals("PENDING", pending.body().get("status").asText(), pending.body()::toString);
        Http.Reply held = http.send("GET", "/jobs/" + leasedId, null, Duration.ofSeconds(10));
        assertEquals("LEASED", held.body().get("status").asText(), held.body()::toString);
        assertFalse(held.body().get("cancelRequested").asBoolean(), held.body()::toString);
        Http.Reply again = http.send("POST", "/jobs/bulk", cancel, Duration.ofSeconds(30));
        assertEquals(200, again.status(), () -> String.valueOf(again.body()));
        assertEquals(2, again.body().get("eligible").asInt(), again.body()::toString);
        assertEquals(2, again.body().get("changed").asInt(), again.body()::toString);
        assertEquals(0, again.body().get("skipped").asInt(), again.body()::toString);
        assertEquals("CANCELLED", http.send("GET", "/jobs/" + pendingId, null, Duration.ofSeconds(10)).body()
                .get("status").asText());
        assertTrue(http.send("GET", "/jobs/" + leasedId, null, Duration.ofSeconds(10)).body()
                .get("cancelRequested").asBoolean(), "the worker is told to stop");
    }

    /**
     * Rows whose only lock is an uncommitted INSERT (a new job) or an uncommitted UPDATE (a job
     * made pending again) are skipped, not waited for: what Azure SQL's optimized locking (locks
     * on the transaction id, not the row) must not change (review H6).
     */
    @Test
    void uncommittedInsertsAndUpdatesAreSkippedNotWaitedFor() throws Exception {
        skipOnEnginesThatIgnoreHints();
        enqueue("h6", 3, Map.of());
        JsonNode leased = claim(Map.of("workerId", "w", "queues", List.of("h6"))).reply().body().get("jobs").get(0);
        long leasedId = leased.get("id").asLong();
        Object now = TestDb.time(Instant.now().minusSeconds(5));
        try (Connection inserter = TestDb.dataSource().getConnection();
             Connection updater = TestDb.dataSource().getConnection()) {
            inserter.setAutoCommit(false);
            updater.setAutoCommit(false);
            try (PreparedStatement ps = inserter.prepareStatement("INSERT INTO readpast_job (queue, type, payload, "
                    + "priority, max_attempts, due_at, status) VALUES ('h6', 't', '{}', 100, 3, ?, 0)")) {
                ps.setObject(1, now);
                assertEquals(1, ps.executeUpdate());
            }
            try (PreparedStatement ps = updater.prepareStatement("UPDATE readpast_job SET status = 0, lease_id = NULL, "
                    + "worker_id = NULL, lease_expires_at = NULL, priority = 100 WHERE id = ?")) {
                ps.setLong(1, leasedId);
                assertEquals(1, ps.executeUpdate());
            }
            Timed t = claim(Map.of("workerId", "w2", "queues", List.of("h6"), "limit", 10));
            assertTrue(t.ms() < ANSWER_MS, "the claim waited for an uncommitted insert or update: " + t.ms() + " ms");
            assertEquals(2, t.reply().body().get("jobs").size(), "the two committed pending jobs, and only those: "
                    + t.reply().body());
            for (JsonNode job : t.reply().body().get("jobs")) {
                assertTrue(job.get("id").asLong() != leasedId, "the uncommitted update's row was skipped");
            }
            inserter.rollback();
            updater.rollback();
        }
    }

    /** Workers acknowledge and claim in one call on a capped queue (review H1). */
    @Test
    void ackAndClaimOnACappedQueueNeverDeadlocks() throws Exception {
        skipOnEnginesThatIgnoreHints();
        int jobs = 160;
        int cap = 4;
        assertEquals(200, http.send("PUT", "/queues/cq", Map.of("maxWorkers", cap), Duration.ofSeconds(10)).status());
        enqueue("cq", jobs, Map.of());
        long before = store().transientFailures();
        AtomicLong maxActive = new AtomicLong();
        var sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> maxActive.accumulateAndGet(active("cq"), Math::max), 0, 5, TimeUnit.MILLISECONDS);
        Set<Long> done = runAckClaimWorkers(List.of("cq"), jobs, 4, 2);
        sampler.shutdownNow();
        assertEquals(jobs, done.size());
        assertEquals(0, store().transientFailures() - before, "no deadlock victim, no lock timeout");
        assertTrue(maxActive.get() <= cap, "the cap held: " + maxActive.get());
        assertEquals(jobs, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = 'cq' AND status = 3"));
    }

    /** Workers acknowledge and claim in one call over ordered groups (review H4). */
    @Test
    void ackAndClaimOverOrderedGroupsNeverDeadlocks() throws Exception {
        skipOnEnginesThatIgnoreHints();
        int groups = 16;
        int perGroup = 8;
        for (int g = 0; g < groups; g++) {
            enqueue("gq", perGroup, Map.of("groupKey", "g" + g, "priority", g % 4));
        }
        long before = store().transientFailures();
        Set<Long> done = runAckClaimWorkers(List.of("gq"), groups * perGroup, 4, 3);
        assertEquals(groups * perGroup, done.size());
        assertEquals(0, store().transientFailures() - before, "no deadlock victim, no lock timeout");
    }

    /** Queue settings are written every few milliseconds while workers claim and complete (review H5). */
    @Test
    void queueSettingsWritesDuringTrafficNeverDeadlock() throws Exception {
        skipOnEnginesThatIgnoreHints();
        int jobs = 150;
        enqueue("sq", jobs, Map.of());
        long before = store().transientFailures();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger writes = new AtomicInteger();
        ExecutorService writer = Executors.newSingleThreadExecutor();
        Future<?> w = writer.submit(() -> {
            while (!stop.get()) {
                Http.Reply r = http.send("PUT", "/queues/sq", Map.of("leaseSeconds", 30 + writes.get() % 5),
                        Duration.ofSeconds(10));
                assertEquals(200, r.status(), () -> String.valueOf(r.body()));
                writes.incrementAndGet();
            }
            return null;
        });
        try {
            Set<Long> done = runAckClaimWorkers(List.of("sq"), jobs, 3, 2);
            assertEquals(jobs, done.size());
        } finally {
            stop.set(true);
            w.get(30, TimeUnit.SECONDS);
            writer.shutdownNow();
        }
        assertTrue(writes.get() > 5, "settings were written during the traffic: " + writes.get());
        assertEquals(0, store().transientFailures() - before, "no deadlock victim, no lock timeout");
    }

    /** Jobs expire while claims take them: the expiry sweeper and the claims never deadlock (review M5). */
    @Test
    void theExpirySweeperAndClaimsNeverDeadlock() throws Exception {
        skipOnEnginesThatIgnoreHints();
        int jobs = 240;
        List<Map<String, Object>> items = new ArrayList<>();
        Instant start = Instant.now();
        for (int i = 0; i < jobs; i++) {
            items.add(Map.of("queue", "xq", "type", "t", "expiresAt",
                    start.plusMillis(1500 + (i * 2000L / jobs)).toString()));
        }
        assertEquals(200, http.post("/jobs/batch", Map.of("jobs", items)).status());
        long before = store().transientFailures();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService sweeper = Executors.newSingleThreadExecutor();
        Future<?> s = sweeper.submit(() -> {
            while (!stop.get()) {
                store().maintenance().jobExpirePending(20);
            }
            return null;
        });
        Set<Long> done;
        try {
            done = runAckClaimWorkers(List.of("xq"), jobs, 4, 1, () -> TestDb.count(
                    "SELECT count(*) FROM readpast_job WHERE queue = 'xq'") == 0);
        } finally {
            stop.set(true);
            s.get(30, TimeUnit.SECONDS);
            sweeper.shutdownNow();
        }
        long dead = TestDb.count("SELECT count(*) FROM readpast_job_dead WHERE queue = 'xq'");
        assertEquals(jobs, done.size() + dead, "every job either ran or expired, once");
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job_dead d WHERE d.queue = 'xq' "
                + "AND EXISTS (SELECT 1 FROM readpast_job_archive a WHERE a.id = d.id)"));
        assertEquals(0, store().transientFailures() - before, "no deadlock victim, no lock timeout");
    }

    private Set<Long> runAckClaimWorkers(List<String> queues, int jobs, int workers, int limit) throws Exception {
        Set<Long> done = ConcurrentHashMap.newKeySet();
        runAckClaimWorkers(queues, jobs, workers, limit, () -> false, done);
        return done;
    }

    private Set<Long> runAckClaimWorkers(List<String> queues, int jobs, int workers, int limit,
                                         java.util.function.BooleanSupplier finished) throws Exception {
        Set<Long> done = ConcurrentHashMap.newKeySet();
        runAckClaimWorkers(queues, jobs, workers, limit, finished, done);
        return done;
    }


    /**
     * Review round 2, N3, at SNAPSHOT (SQL Server): two transactions enqueue one idempotency key
     * at once. The second waits for the first's key and then answers with its job: no update
     * conflict (3960), no duplicate-key error, because the procedures run at READ COMMITTED
     * inside (V28). The caller keeps its SNAPSHOT level.
     */
    @Test
    void snapshotCallersRacingOnOneKeyGetOneJob() throws Exception {
        assumeTrue(TestDb.engine() == Engine.SQLSERVER && !TestDb.babelfish(),
                "SNAPSHOT isolation is SQL Server's (PostgreSQL has no such level; Babelfish maps levels to PostgreSQL's)");
        try (Connection admin = TestDb.dataSource().getConnection(); java.sql.Statement s = admin.createStatement()) {
            admin.setAutoCommit(true);
            try {
                s.execute("ALTER DATABASE CURRENT SET ALLOW_SNAPSHOT_ISOLATION ON");
            } catch (java.sql.SQLException e) {
                assumeTrue(false, "ALLOW_SNAPSHOT_ISOLATION could not be switched on: " + e.getMessage());
            }
        }
        int snapshot = 0x1000; // SQLServerConnection.TRANSACTION_SNAPSHOT
        try (Connection first = SqlEnqueueTest.connection(); Connection second = SqlEnqueueTest.connection()) {
            first.setTransactionIsolation(snapshot);
            second.setTransactionIsolation(snapshot);
            // both transactions have begun (a snapshot is taken at the first read) before either enqueues
            for (Connection c : List.of(first, second)) {
                try (java.sql.Statement s = c.createStatement()) {
                    s.executeQuery("SELECT COUNT(*) FROM readpast_queue").close();
                }
            }
            SqlEnqueueTest.Outcome a = SqlEnqueueTest.one(first, "sql-snap", "t", "{}", "snap-key", null, null);
            assertFalse(a.refused(), String.valueOf(a));
            java.util.concurrent.CompletableFuture<SqlEnqueueTest.Outcome> b = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return SqlEnqueueTest.one(second, "sql-snap", "t", "{}", "snap-key", null, null);
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException("the second enqueue failed: " + e.getMessage(), e);
                }
            });
            first.commit();
            SqlEnqueueTest.Outcome second2 = b.get(30, TimeUnit.SECONDS);
            assertFalse(second2.refused(), String.valueOf(second2));
            assertEquals(a.id(), second2.id(), "the second answers with the first's job");
            assertEquals(snapshot, SqlEnqueueTest.sessionLevel(second), "the caller's level after the enqueue");
            second.commit();
        }
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'sql-snap'"));
    }

    /**
     * Review round 2, N1: a claim in progress on a rate-limited, fair queue holds that queue's row
     * with an update lock only (its window count and cursor are in readpast_queue_tally, V27,
     * written last), so an acknowledgement, which holds its job row and then reads the queue row
     * (the webhook URL), never waits for it. A second connection runs a claim over the queue up to
     * its last statement and holds it open; a job of that queue is then completed through HTTP and
     * must answer at once. On SQL Server with READ_COMMITTED_SNAPSHOT off this waited for the
     * claim's exclusive lock on the queue row (and, with the claim waiting in turn, deadlocked);
     * PostgreSQL's plain reads never wait, so there it holds trivially.
     */
    @Test
    void anAckNeverWaitsForTheQueueRowOfAClaimInProgress() throws Exception {
        skipOnEnginesThatIgnoreHints();
        assertEquals(200, http.send("PUT", "/queues/n1", Map.of("rateLimit", 1000, "ratePeriodSeconds", 60),
                Duration.ofSeconds(10)).status());
        enqueue("n1", 6, Map.of());
        Http.Reply leased = http.post("/claim", Map.of("workerId", "acker", "queues", List.of("n1"), "limit", 1));
        assertEquals(200, leased.status(), () -> String.valueOf(leased.body()));
        JsonNode job = leased.body().get("jobs").get(0);
        JdbcStores store = store();
        try (Connection claim = TestDb.dataSource().getConnection()) {
            claim.setAutoCommit(false);
            List<String> locked = store.sql().query(claim, io.readpast.store.Stmt.QUEUE_LOCK_CAPPED,
                    io.readpast.store.Params.of().str("queues", "[\"n1\"]").integer("limit", 2),
                    (rs, cols) -> rs.getBoolean(cols.get("locked")) ? rs.getString(cols.get("name")) : null);
            assertEquals(List.of("n1"), locked, "the claim holds the queue's row");
            int taken = store.sql().query(claim, io.readpast.store.Stmt.JOB_CLAIM, io.readpast.store.Params.of()
                    .str("claimers", "[{\"n\":0,\"worker_id\":\"held\",\"lease_seconds\":null,\"lo\":0,\"hi\":2}]")
                    .str("queues", "[\"n1\"]").str("types", null).str("locked_queues", "[\"n1\"]")
                    .bool("prelude", false).integer("limit", 2).integer("default_lease_seconds", 30)
                    .str("modified_by", null), (rs, cols) -> 1).size();
            assertEquals(2, taken);
            store.sql().execute(claim, io.readpast.store.Stmt.QUEUE_RATE_COUNT,
                    io.readpast.store.Params.of().str("counts", "[{\"queue\":\"n1\",\"n\":2}]"));
            long start = System.nanoTime();
            Http.Reply done = http.send("POST", "/jobs/" + job.get("id").asLong() + "/complete",
                    Map.of("leaseId", job.get("leaseId").asText()), Duration.ofSeconds(30));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(200, done.status(), () -> String.valueOf(done.body()));
            assertTrue(ms < ANSWER_MS, "the acknowledgement waited for the claim's queue row: " + ms + " ms");
            assertTrue(!claim.isClosed() && !claim.getAutoCommit(), "the claim was held throughout");
            claim.commit();
        }
        // the count the held claim made is in the window: 1 + 2 of 1000, the queue claims on
        Http.Reply next = http.post("/claim", Map.of("workerId", "after", "queues", List.of("n1"), "limit", 10));
        assertEquals(3, next.body().get("jobs").size(), () -> String.valueOf(next.body()));
    }

    /**
     * Review round 2, N2: the due scheduled jobs a claim makes pending are committed before the
     * claim takes anything (SQL Server: include/claim_prelude.sql), so the claim never holds them
     * while it goes on to wait for other rows. A second connection runs a claim that promotes a
     * due job of one queue and leases a job of another, and keeps its transaction open; a plain
     * read of the promoted job then answers at once, and on SQL Server it reads the job pending
     * already. (On SQL Server with READ_COMMITTED_SNAPSHOT off the read waited for the claim's
     * exclusive lock on the promoted row; PostgreSQL promotes in the claim's own statement, which
     * its plain reads never wait for, so there the read sees the row as it was before.)
     */
    @Test
    void theRowsAClaimPromotesAreNotHeldByIt() throws Exception {
        skipOnEnginesThatIgnoreHints();
        enqueue("n2-now", 1, Map.of("priority", 10));
        enqueue("n2-later", 1, Map.of("delaySeconds", 1));
        long scheduled;
        try (Connection c = TestDb.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT id FROM readpast_job WHERE queue = 'n2-later'");
             ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            scheduled = rs.getLong(1);
        }
        String dueCheck = TestDb.engine() == Engine.SQLSERVER
                ? "SELECT COUNT(*) FROM readpast_job WHERE id = ? AND due_at <= SYSUTCDATETIME()"
                : "SELECT COUNT(*) FROM readpast_job WHERE id = ? AND due_at <= now()";
        Instant until = Instant.now().plusSeconds(30);
        boolean due = false;
        while (!due && Instant.now().isBefore(until)) {
            try (Connection c = TestDb.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(dueCheck)) {
                ps.setLong(1, scheduled);
                try (ResultSet rs = ps.executeQuery()) {
                    due = rs.next() && rs.getInt(1) == 1;
                }
            }
            Thread.onSpinWait();
        }
        assertTrue(due, "the delayed job came due by the database's clock");
        JdbcStores store = store();
        try (Connection claim = TestDb.dataSource().getConnection()) {
            claim.setAutoCommit(false);
            List<String> queues = store.sql().query(claim, io.readpast.store.Stmt.JOB_CLAIM, io.readpast.store.Params.of()
                    .str("claimers", "[{\"n\":0,\"worker_id\":\"held\",\"lease_seconds\":null,\"lo\":0,\"hi\":1}]")
                    .str("queues", "[\"n2-now\",\"n2-later\"]").str("types", null).str("locked_queues", "[]")
                    .bool("prelude", true).integer("limit", 1).integer("default_lease_seconds", 30)
                    .str("modified_by", null), (rs, cols) -> rs.getString(cols.get("queue")));
            assertEquals(List.of("n2-now"), queues, "the claim leased the job of higher priority");
            long start = System.nanoTime();
            int status;
            try (Connection reader = TestDb.dataSource().getConnection();
                 PreparedStatement ps = reader.prepareStatement("SELECT status FROM readpast_job WHERE id = ?")) {
                ps.setLong(1, scheduled);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    status = rs.getInt(1);
                }
            }
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms < ANSWER_MS, "a read of the promoted row waited for the claim: " + ms + " ms");
            if (TestDb.engine() == Engine.SQLSERVER) {
                assertEquals(0, status, "the promotion was committed before the claim");
            } else {
                assertTrue(status == 0 || status == 6, "pending, or scheduled until the claim commits: " + status);
            }
            claim.commit();
        }
        Http.Reply next = http.post("/claim", Map.of("workerId", "after", "queues", List.of("n2-later"), "limit", 1));
        assertEquals(1, next.body().get("jobs").size(), "the promoted job is claimable");
    }

    /**
     * Workers that send their finished jobs with each request for the next ones, until every job
     * is acknowledged (or {@code finished} says so); a job acknowledged twice fails the test.
     */
    private void runAckClaimWorkers(List<String> queues, int jobs, int workers, int limit,
                                    java.util.function.BooleanSupplier finished, Set<Long> done) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                String worker = "w" + w;
                fs.add(pool.submit(() -> {
                    List<Map<String, Object>> ack = List.of();
                    while (done.size() < jobs && !finished.getAsBoolean() && System.nanoTime() < deadline) {
                        Http.Reply r = http.post("/claim", ack.isEmpty()
                                ? Map.of("workerId", worker, "queues", queues, "limit", limit)
                                : Map.of("workerId", worker, "queues", queues, "limit", limit, "ack", ack));
                        assertEquals(200, r.status(), () -> String.valueOf(r.body()));
                        if (r.body().has("acks")) {
                            for (JsonNode a : r.body().get("acks")) {
                                assertTrue(a.path("status").asInt(200) == 200, "ack refused: " + a);
                            }
                        }
                        for (Map<String, Object> a : ack) {
                            assertTrue(done.add(Long.parseLong((String) a.get("id"))), "acknowledged twice: " + a);
                        }
                        List<Map<String, Object>> next = new ArrayList<>();
                        for (JsonNode job : r.body().get("jobs")) {
                            next.add(Map.of("id", job.get("id").asText(), "leaseId", job.get("leaseId").asText()));
                        }
                        ack = next;
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(3, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static long active(String queue) {
        return TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = ? AND status IN (1, 2)", queue);
    }
}
