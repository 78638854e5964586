package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;
import io.readpast.testsupport.Http;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fair queues (docs/fairness.md): keys served in turn, at most keyMaxWorkers jobs of one key
 * at work, at most keyRateLimit claims of one key per window, all enforced in the claim
 * statement; bad settings refused; the per-key view. The same claims across three broker
 * processes: FairnessMultiInstanceIT.
 */
@QuarkusTest
class FairnessTest {

    @TestHTTPResource("/")
    URI base;

    @jakarta.inject.Inject
    io.readpast.store.Database database;

    Http http;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    private JsonNode put(String queue, String settings) {
        Http.Reply r = http.send("PUT", "/queues/" + queue, settings, Duration.ofSeconds(30));
        assertEquals(200, r.status(), String.valueOf(r.body()));
        return r.body();
    }

    private void enqueue(String queue, String key, int n) {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // no payload: a batch item's payload is a JSON string inside JSON, which Babelfish hands back
            // still escaped (TestDb.jsonStringsUnescaped); fairness does not depend on it
            jobs.add(Map.of("queue", queue, "type", "t", "fairnessKey", key));
        }
        Http.Reply r = http.post("/jobs/batch", Map.of("jobs", jobs));
        assertEquals(200, r.status(), String.valueOf(r.body()));
    }

    private JsonNode claim(String queue, int limit) {
        Http.Reply r = http.post("/claim", Map.of("workerId", "fair", "queues", List.of(queue), "limit", limit,
                "leaseSeconds", 600));
        assertEquals(200, r.status(), String.valueOf(r.body()));
        return r.body().get("jobs");
    }

    /**
     * A claim as a worker makes it: a 503 (with Retry-After: the database was busy, e.g. a lock
     * timeout on Babelfish, where claims wait for each other's rows) is an empty claim, tried again.
     */
    private JsonNode claimOrBusy(String queue, int limit) {
        Http.Reply r = http.post("/claim", Map.of("workerId", "fair", "queues", List.of(queue), "limit", limit,
                "leaseSeconds", 600));
        if (r.status() == 503) {
            assertTrue(r.retryAfter() != null, "a 503 says when to come back");
            return Http.JSON.createArrayNode();
        }
        assertEquals(200, r.status(), String.valueOf(r.body()));
        return r.body().get("jobs");
    }

    /** The bound this test and README state: every job of B-K among the first (10 x 11) + 11 claimed. */
    static final int FAIRNESS_SLACK = 11;

    @Test
    void aKeyWithAHundredThousandJobsDelaysTheOthersByOneTurnAtMost() throws Exception {
        put("fair-rr", "{\"fairness\":\"round-robin\"}");
        bulkInsert("fair-rr", "A", 100_000);
        List<String> small = List.of("B", "C", "D", "E", "F", "G", "H", "ü-tenant", "日本", "K");
        for (String key : small) {
            enqueue("fair-rr", key, 10);
        }
        Set<String> smallIds = new HashSet<>();
        try (Connection c = TestDb.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT id FROM readpast_job WHERE queue = 'fair-rr' AND fairness_key <> 'A'")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    smallIds.add(Long.toString(rs.getLong(1)));
                }
            }
        }
        assertEquals(100, smallIds.size());
        int claimed = 0;
        int lastSmall = -1;
        Map<String, Integer> perKey = new HashMap<>();
        while (!smallIds.isEmpty() && claimed < 400) {
            for (JsonNode job : claim("fair-rr", 10)) {
                claimed++;
                perKey.merge(job.get("fairnessKey").asText(), 1, Integer::sum);
                if (smallIds.remove(job.get("id").asText())) {
                    lastSmall = claimed;
                }
            }
        }
        System.out.printf("fairness: the last of B-K's 100 jobs was claimed %d-th (bound %d); per key %s%n",
                lastSmall, 10 * 11 + FAIRNESS_SLACK, perKey);
        assertTrue(smallIds.isEmpty(), "every job of B-K was claimed: " + smallIds.size() + " left");
        assertTrue(lastSmall <= 10 * 11 + FAIRNESS_SLACK,
                "every job of B-K among the first " + (10 * 11 + FAIRNESS_SLACK) + " claimed, the last was " + lastSmall);
        assertTrue(perKey.getOrDefault("A", 0) <= 11 + FAIRNESS_SLACK, "A had one turn per round: " + perKey);
    }

    @Test
    void eachKeyGivesItsBestJobsFirstAndOneTurnAtATime() {
        put("fair-prio", "{\"fairness\":\"round-robin\"}");
        for (int priority : List.of(0, 5, 9, 1)) {
            assertEquals(201, http.post("/jobs", Map.of("queue", "fair-prio", "type", "t", "fairnessKey", "x",
                    "priority", priority)).status());
        }
        for (int i = 0; i < 2; i++) {
            assertEquals(201, http.post("/jobs", Map.of("queue", "fair-prio", "type", "t", "fairnessKey", "y",
                    "priority", 3)).status());
        }
        enqueue("fair-prio", "z", 1);
        // three keys, a claim of three: one job of each, each key's best
        JsonNode first = claim("fair-prio", 3);
        Map<String, List<Integer>> perKey = new HashMap<>();
        for (JsonNode job : first) {
            perKey.computeIfAbsent(job.get("fairnessKey").asText(), k -> new ArrayList<>()).add(job.get("priority").asInt());
        }
        assertEquals(Map.of("x", List.of(9), "y", List.of(3), "z", List.of(0)), perKey, "one turn of each key: " + first);
        // x's other jobs come in priority order, claim after claim, whatever each claim's share
        List<Integer> xs = new ArrayList<>(List.of(9));
        int ys = 1;
        for (int c = 0; c < 6 && (xs.size() < 4 || ys < 2); c++) {
            List<Integer> these = new ArrayList<>();
            for (JsonNode job : claim("fair-prio", 3)) {
                if (job.get("fairnessKey").asText().equals("x")) {
                    these.add(job.get("priority").asInt());
                } else {
                    ys++;
                }
            }
            these.sort(java.util.Comparator.reverseOrder());
            xs.addAll(these);
        }
        assertEquals(List.of(9, 5, 1, 0), xs, "x's jobs by priority");
        assertEquals(2, ys, "y's two jobs");
        assertEquals(0, claim("fair-prio", 3).size(), "nothing left");
    }

    @Test
    void noKeyEverHasMoreThanKeyMaxWorkersAtWork() throws Exception {
        put("fair-cap", "{\"keyMaxWorkers\":2}");
        for (int k = 0; k < 20; k++) {
            enqueue("fair-cap", "k" + k, 10);
        }
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger maxSeen = new AtomicInteger();
        AtomicInteger samples = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(13);
        try {
            Future<?> sampler = pool.submit(() -> {
                try (Connection c = TestDb.dataSource().getConnection();
                     PreparedStatement ps = c.prepareStatement("SELECT fairness_key, count(*) FROM readpast_job "
                             + "WHERE queue = 'fair-cap' AND status IN (1, 2) GROUP BY fairness_key")) {
                    c.setAutoCommit(true);
                    while (!done.get()) {
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                maxSeen.accumulateAndGet(rs.getInt(2), Math::max);
                            }
                        }
                        samples.incrementAndGet();
                    }
                }
                return null;
            });
            List<Future<?>> claimers = new ArrayList<>();
            for (int t = 0; t < 12; t++) {
                claimers.add(pool.submit(() -> {
                    // each claimer holds its previous batch while it claims the next one, so that
                    // keys have jobs at work when they come round again (the cap is exercised);
                    // a claim that finds the queue's row taken by another claim comes back empty,
                    // so it is tried again a few times before the held batch is let go
                    List<JsonNode> held = new ArrayList<>();
                    while (completed.get() < 200) {
                        List<JsonNode> next = new ArrayList<>();
                        for (int attempt = 0; attempt < 5 && next.isEmpty(); attempt++) {
                            claimOrBusy("fair-cap", 4).forEach(next::add);
                        }
                        if (next.isEmpty() && held.isEmpty()) {
                            continue;
                        }
                        for (JsonNode job : held) {
                            Http.Reply r = http.post("/jobs/" + job.get("id").asText() + "/complete",
                                    Map.of("leaseId", job.get("leaseId").asText()));
                            assertEquals(200, r.status());
                            completed.incrementAndGet();
                        }
                        held = next;
                    }
                    return null;
                }));
            }
            for (Future<?> f : claimers) {
                f.get(120, TimeUnit.SECONDS);
            }
            done.set(true);
            sampler.get(30, TimeUnit.SECONDS);
        } finally {
            done.set(true);
            pool.shutdownNow();
        }
        System.out.printf("per-key cap: %d jobs, %d samples, at most %d of one key at work%n",
                completed.get(), samples.get(), maxSeen.get());
        assertEquals(200, completed.get());
        assertTrue(samples.get() > 10, "the active counts were sampled throughout: " + samples.get());
        assertTrue(maxSeen.get() <= 2, "never more than keyMaxWorkers (2) of one key at work: " + maxSeen.get());
        assertEquals(2, maxSeen.get(), "the cap was reached (the test exercised it)");
    }

    @Test
    void noKeyIsClaimedMoreThanKeyRateLimitTimesInOneWindow() throws Exception {
        put("fair-rate", "{\"keyRateLimit\":3,\"keyRatePeriodSeconds\":2}");
        for (String key : List.of("r1", "r2", "r3", "r4")) {
            enqueue("fair-rate", key, 9);
        }
        await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(100)).until(() -> {
            claim("fair-rate", 20);
            return TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'fair-rate' AND status = 1") == 36;
        });
        Map<String, Integer> perWindow = new HashMap<>();
        try (Connection c = TestDb.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT fairness_key, updated_at FROM readpast_job WHERE queue = 'fair-rate'")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Instant at = TestDb.instant(rs, "updated_at");
                    perWindow.merge(rs.getString(1) + "@" + at.toEpochMilli() / 2000, 1, Integer::sum);
                }
            }
        }
        System.out.printf("per-key rate: claims per key and window %s%n", perWindow);
        assertTrue(perWindow.values().stream().allMatch(n -> n <= 3), "at most 3 claims of a key per window: " + perWindow);
        assertTrue(perWindow.size() >= 12, "9 jobs per key at 3 a window take 3 windows or more: " + perWindow);
    }

    @Test
    void badFairnessSettingsAre400AndChangeNothing() {
        put("fair-bad", "{\"keyMaxWorkers\":3}");
        String before = TestDb.snapshot();
        for (String body : List.of("{\"keyMaxWorkers\":0}", "{\"keyMaxWorkers\":-1}", "{\"keyMaxWorkers\":1000001}",
                "{\"keyMaxWorkers\":\"2\"}", "{\"keyMaxWorkers\":1.5}", "{\"keyRateLimit\":5}",
                "{\"keyRatePeriodSeconds\":5}", "{\"keyRateLimit\":0,\"keyRatePeriodSeconds\":5}",
                "{\"keyRateLimit\":5,\"keyRatePeriodSeconds\":0}", "{\"keyRateLimit\":5,\"keyRatePeriodSeconds\":86401}",
                "{\"fairness\":\"fifo\"}", "{\"fairness\":\"\"}", "{\"fairness\":7}", "{\"fairness\":\"round-robin \"}")) {
            Http.Reply r = http.send("PUT", "/queues/fair-bad", body, Duration.ofSeconds(30));
            assertEquals(400, r.status(), body + " -> " + r.body());
            assertTrue(r.contentType().startsWith("application/problem+json"), body);
        }
        assertEquals(before, TestDb.snapshot(), "nothing changed");
        JsonNode q = http.send("GET", "/queues/fair-bad", null, Duration.ofSeconds(30)).body();
        assertEquals(3, q.get("keyMaxWorkers").asInt());
        assertEquals("round-robin", q.get("fairness").asText(), "a per-key cap makes the queue fair");
    }

    @Test
    void aKeySettingOnANewQueueCreatesItFairAndTheKeysViewShowsEachKey() {
        JsonNode q = put("fair-new", "{\"keyMaxWorkers\":1,\"keyRateLimit\":10,\"keyRatePeriodSeconds\":60}");
        assertEquals("round-robin", q.get("fairness").asText());
        assertEquals(1, q.get("keyMaxWorkers").asInt());
        assertEquals(10, q.get("keyRateLimit").asInt());
        assertEquals(60, q.get("keyRatePeriodSeconds").asInt());
        enqueue("fair-new", "big", 5);
        enqueue("fair-new", "small", 2);
        // a job without a key in a fair queue shares the key ""
        assertEquals(201, http.post("/jobs", Map.of("queue", "fair-new", "type", "t")).status());
        JsonNode claimed = claim("fair-new", 10);
        assertEquals(3, claimed.size(), "one per key (keyMaxWorkers 1): " + claimed);
        JsonNode keys = http.send("GET", "/queues/fair-new/keys", null, Duration.ofSeconds(30)).body();
        assertEquals("round-robin", keys.get("fairness").asText());
        Map<String, long[]> byKey = new HashMap<>();
        for (JsonNode k : keys.get("keys")) {
            byKey.put(k.get("key").asText(), new long[] {k.get("pending").asLong(), k.get("active").asLong()});
        }
        assertEquals(List.of(4L, 1L), List.of(byKey.get("big")[0], byKey.get("big")[1]));
        assertEquals(List.of(1L, 1L), List.of(byKey.get("small")[0], byKey.get("small")[1]));
        assertEquals(List.of(0L, 1L), List.of(byKey.get("")[0], byKey.get("")[1]));
        assertEquals("big", keys.get("keys").get(0).get("key").asText(), "most pending first");
        assertEquals(404, http.send("GET", "/queues/no-such-queue/keys", null, Duration.ofSeconds(30)).status());
        assertEquals(400, http.send("GET", "/queues/fair-new/keys?limit=0", null, Duration.ofSeconds(30)).status());
    }

    @Test
    void jobsEnqueuedBeforeAQueueBecameFairJoinTheKeyOfNoKey() {
        assertEquals(201, http.post("/jobs", Map.of("queue", "fair-late", "type", "t")).status());
        enqueue("fair-late", "x", 1);
        put("fair-late", "{\"fairness\":\"round-robin\"}");
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'fair-late' AND fairness_key = ''"));
        JsonNode claimed = claim("fair-late", 10);
        assertEquals(2, claimed.size(), "both are claimable: " + claimed);
        Set<String> keys = new HashSet<>();
        claimed.forEach(j -> keys.add(j.get("fairnessKey").asText()));
        assertEquals(Set.of("", "x"), keys);
    }

    @Test
    void aPlainQueueIsClaimedByThePlainStatementAloneAndAFairOneByTheFairOne() {
        var store = database.start();
        assertEquals(201, http.post("/jobs", Map.of("queue", "plain-q", "type", "t", "fairnessKey", "k")).status());
        put("fair-other", "{\"fairness\":\"round-robin\"}");
        JsonNode claimed = claim("plain-q", 5);
        assertEquals(1, claimed.size());
        assertEquals("k", claimed.get(0).get("fairnessKey").asText(), "a key is stored, whatever the queue");
        long fair = store.statementsExecuted(io.readpast.store.Stmt.JOB_CLAIM_FAIR);
        long locks = store.statementsExecuted(io.readpast.store.Stmt.QUEUE_LOCK_CAPPED);
        assertEquals(201, http.post("/jobs", Map.of("queue", "plain-q", "type", "t")).status());
        assertEquals(1, claim("plain-q", 5).size());
        assertEquals(fair, store.statementsExecuted(io.readpast.store.Stmt.JOB_CLAIM_FAIR), "no fair claim for a plain queue");
        assertEquals(locks, store.statementsExecuted(io.readpast.store.Stmt.QUEUE_LOCK_CAPPED), "no queue lock for it");
        long plain = store.statementsExecuted(io.readpast.store.Stmt.JOB_CLAIM);
        enqueue("fair-other", "k", 1);
        assertEquals(1, claim("fair-other", 5).size());
        assertEquals(fair + 1, store.statementsExecuted(io.readpast.store.Stmt.JOB_CLAIM_FAIR), "the fair queue's claim");
        // round-robin alone, and nothing else in the claim's scope: that one statement, no lock
        // (it needs none) and no plain claim (no plain queue is reachable)
        assertEquals(locks, store.statementsExecuted(io.readpast.store.Stmt.QUEUE_LOCK_CAPPED), "no queue lock for it");
        assertEquals(plain, store.statementsExecuted(io.readpast.store.Stmt.JOB_CLAIM), "no plain claim with it");
        // a fair queue with a key limit is claimed under its queue's lock
        put("fair-capped", "{\"keyMaxWorkers\":1}");
        enqueue("fair-capped", "k", 2);
        assertEquals(1, claim("fair-capped", 5).size(), "keyMaxWorkers 1");
        assertEquals(fair + 2, store.statementsExecuted(io.readpast.store.Stmt.JOB_CLAIM_FAIR), "the capped fair queue's claim");
        assertEquals(locks + 1, store.statementsExecuted(io.readpast.store.Stmt.QUEUE_LOCK_CAPPED), "under its lock");
    }

    /** Set-up the API would take minutes for: 100,000 due jobs of one key, in one statement. */
    private static void bulkInsert(String queue, String key, int n) {
        String sql = TestDb.engine() == Engine.POSTGRESQL
                ? "INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at, status, fairness_key) "
                + "SELECT ?, 't', '{}', 3, now() - interval '1 hour', 0, ? FROM generate_series(1, ?)"
                : "INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at, status, fairness_key) "
                + "SELECT TOP (?) ?, 't', '{}', 3, DATEADD(HOUR, -1, SYSUTCDATETIME()), 0, ? "
                + "FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) AS a (d) "
                + "CROSS JOIN (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) AS b (d) "
                + "CROSS JOIN (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) AS c (d) "
                + "CROSS JOIN (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) AS e (d) "
                + "CROSS JOIN (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) AS f (d)";
        Object[] args = TestDb.engine() == Engine.POSTGRESQL ? new Object[] {queue, key, n} : new Object[] {n, queue, key};
        assertEquals(n, TestDb.update(sql, args));
    }
}
