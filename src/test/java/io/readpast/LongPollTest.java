package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Http;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;
import io.readpast.core.JobAnnouncer;
import io.readpast.core.Wakeups;
import io.readpast.store.Database;
import io.readpast.store.jdbc.JdbcStores;
import io.readpast.store.Stmt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Long-poll claims: woken by enqueues, by other instances, by due times; idle waiting is nearly free. */
@QuarkusTest
class LongPollTest {

    @TestHTTPResource("/")
    URI base;

    /** In process only: null against the packaged artifact (the tests that need it are disabled there). */
    Wakeups wakeups = TestDb.bean(Wakeups.class);

    /** In process only: null against the packaged artifact (the tests that need it are disabled there). */
    JobAnnouncer announcer = TestDb.bean(JobAnnouncer.class);

    /** In process only: null against the packaged artifact (the tests that need it are disabled there). */
    Database database = TestDb.bean(Database.class);

    Http http;
    ExecutorService pool;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    @AfterEach
    void stopPool() {
        if (pool != null) {
            pool.shutdownNow();
            pool = null;
        }
    }

    private CompletableFuture<Http.Reply> claimAsync(String queue, int waitSeconds) {
        return CompletableFuture.supplyAsync(() -> http.send("POST", "/claim",
                Map.of("workerId", "lp", "queues", List.of(queue), "waitSeconds", waitSeconds), Duration.ofSeconds(60)));
    }

    /** A long-polling claim of up to {@code limit} jobs, on a thread of the test's {@code pool}. */
    private CompletableFuture<Http.Reply> claimOnPool(String queue, int limit, int waitSeconds) {
        return CompletableFuture.supplyAsync(() -> http.send("POST", "/claim",
                Map.of("workerId", "lp", "queues", List.of(queue), "limit", limit, "waitSeconds", waitSeconds),
                Duration.ofSeconds(60)), pool);
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void aWaitingClaimReturnsAsSoonAsAJobIsEnqueued() throws Exception {
        int before = wakeups.waiting();
        CompletableFuture<Http.Reply> claim = claimAsync("lp1", 20);
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.waiting() > before);
        String id = http.post("/jobs", Map.of("queue", "lp1", "type", "t")).body().get("id").asText();
        Http.Reply r = claim.get(10, TimeUnit.SECONDS);  // well before the 20 s deadline
        assertEquals(200, r.status());
        assertEquals(id, r.body().get("jobs").get(0).get("id").asText());
    }

    @Test
    void aWaitingClaimReturnsEmptyAtTheDeadline() throws Exception {
        long start = System.nanoTime();
        Http.Reply r = claimAsync("lp-empty", 1).get(30, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(0, r.body().get("jobs").size());
        assertTrue(ms >= 900, "waited until the deadline, " + ms + " ms");
    }

    @Test
    void aJobComingDueWakesAWaiterThroughTheSharedPoll() throws Exception {
        String id = http.post("/jobs", Map.of("queue", "lp2", "type", "t", "delaySeconds", 2)).body().get("id").asText();
        Http.Reply r = claimAsync("lp2", 25).get(30, TimeUnit.SECONDS);
        assertEquals(1, r.body().get("jobs").size(), "the delayed job was handed to the waiting claim");
        assertEquals(id, r.body().get("jobs").get(0).get("id").asText());
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void anotherInstancesNotifyWakesAWaiter() throws Exception {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "LISTEN/NOTIFY is PostgreSQL's");
        int before = wakeups.waiting();
        long received = announcer.receivedCount();
        CompletableFuture<Http.Reply> claim = claimAsync("lp3", 25);
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.waiting() > before);
        // Another instance's enqueue: the row, then its NOTIFY (as PgNotifications sends it).
        try (Connection c = TestDb.dataSource().getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO readpast_queue (name) VALUES ('lp3') ON CONFLICT DO NOTHING")) {
                ps.execute();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at) "
                    + "VALUES ('lp3', 't', '{}', 3, now())")) {
                ps.execute();
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify('readpast_jobs', ?)")) {
                ps.setString(1, "some-other-instance\nlp3\t1");
                ps.execute();
            }
        }
        Http.Reply r = claim.get(30, TimeUnit.SECONDS);
        assertEquals(1, r.body().get("jobs").size());
        await().atMost(Duration.ofSeconds(5)).until(() -> announcer.receivedCount() > received);
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void anotherInstancesDelayedJobWakesAWaiterWhenItComesDue() throws Exception {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "LISTEN/NOTIFY is PostgreSQL's");
        int before = wakeups.waiting();
        CompletableFuture<Http.Reply> claim = claimAsync("lp-later", 25);
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.waiting() > before);
        long start = System.nanoTime();
        // Another instance's delayed enqueue: the row, due in 2 s, then its due-time NOTIFY.
        try (Connection c = TestDb.dataSource().getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO readpast_queue (name) VALUES ('lp-later') ON CONFLICT DO NOTHING")) {
                ps.execute();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at) "
                    + "VALUES ('lp-later', 't', '{}', 3, now() + interval '2 seconds') RETURNING extract(epoch from due_at) * 1000")) {
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long dueMs = (long) rs.getDouble(1);
                    try (PreparedStatement n = c.prepareStatement("SELECT pg_notify('readpast_jobs', ?)")) {
                        n.setString(1, "some-other-instance\nlp-later\tdue:" + dueMs);
                        n.execute();
                    }
                }
            }
        }
        Http.Reply r = claim.get(30, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(1, r.body().get("jobs").size());
        assertTrue(seconds < 10, "claimed when due (2 s), not at the 30 s safety check: " + seconds + " s");
    }

    @Test
    void aRetryAfterBackoffWakesAWaiterWhenItComesDue() throws Exception {
        String id = http.post("/jobs", Map.of("queue", "lp-retry", "type", "t")).body().get("id").asText();
        Http.Reply first = http.post("/claim", Map.of("workerId", "lp", "queues", List.of("lp-retry")));
        String lease = first.body().get("jobs").get(0).get("leaseId").asText();
        assertEquals(200, http.post("/jobs/" + id + "/fail", Map.of("leaseId", lease, "retryAfterSeconds", 2)).status());
        long start = System.nanoTime();
        Http.Reply r = claimAsync("lp-retry", 25).get(30, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(id, r.body().get("jobs").get(0).get("id").asText(), "the retry");
        assertTrue(seconds < 10, "claimed when the retry came due (2 s): " + seconds + " s");
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void resumingAQueueWakesItsWaiters() throws Exception {
        assertEquals(200, http.send("PUT", "/queues/lp-paused", Map.of("paused", true), Duration.ofSeconds(10)).status());
        String id = http.post("/jobs", Map.of("queue", "lp-paused", "type", "t")).body().get("id").asText();
        int before = wakeups.waiting();
        CompletableFuture<Http.Reply> claim = claimAsync("lp-paused", 25);
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.waiting() > before);
        long start = System.nanoTime();
        assertEquals(200, http.send("POST", "/queues/lp-paused/resume", null, Duration.ofSeconds(10)).status());
        Http.Reply r = claim.get(30, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(id, r.body().get("jobs").get(0).get("id").asText());
        assertTrue(seconds < 10, "claimed once the queue was resumed: " + seconds + " s");
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void aBusyQueueDoesNotMakeTheWaitersOfAQuietQueueClaimAgain() throws Exception {
        JdbcStores store = database.start();
        int before = wakeups.waiting();
        List<CompletableFuture<Http.Reply>> quiet = new ArrayList<>();
        pool = Executors.newFixedThreadPool(20);
        for (int i = 0; i < 20; i++) {
            quiet.add(claimOnPool("lp-quiet", 1, 10));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> wakeups.waiting() >= before + 20);
        long claims = store.statementsExecuted(Stmt.JOB_CLAIM);
        for (int i = 0; i < 200; i++) {
            assertEquals(201, http.post("/jobs", Map.of("queue", "lp-busy", "type", "t")).status());
        }
        assertEquals(claims, store.statementsExecuted(Stmt.JOB_CLAIM),
                "200 enqueues on another queue woke none of the quiet queue's waiters");
        // and the quiet queue's own work still wakes them at once
        String id = http.post("/jobs", Map.of("queue", "lp-quiet", "type", "t")).body().get("id").asText();
        Http.Reply got = CompletableFuture.anyOf(quiet.toArray(CompletableFuture[]::new))
                .thenApply(Http.Reply.class::cast).get(9, TimeUnit.SECONDS);
        assertEquals(id, got.body().get("jobs").get(0).get("id").asText());
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void jobsArrivingTogetherGoToOneClaimThatCanTakeThemAll() throws Exception {
        JdbcStores store = database.start();
        // the claim counter is the instance's: let the waiters of earlier tests reach their
        // deadlines first, so that no other claim runs meanwhile
        await().atMost(Duration.ofSeconds(40)).until(() -> wakeups.waiting() == 0);
        int before = 0;
        pool = Executors.newFixedThreadPool(4);
        List<CompletableFuture<Http.Reply>> waiting = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiting.add(claimOnPool("lp-batch", 10, 8));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.waiting() >= before + 4);
        long claims = store.statementsExecuted(Stmt.JOB_CLAIM);
        List<Map<String, Object>> five = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            five.add(Map.of("queue", "lp-batch", "type", "t"));
        }
        assertEquals(200, http.post("/jobs/batch", Map.of("jobs", five)).status());
        Http.Reply first = CompletableFuture.anyOf(waiting.toArray(CompletableFuture[]::new))
                .thenApply(Http.Reply.class::cast).get(7, TimeUnit.SECONDS);
        assertEquals(5, first.body().get("jobs").size(), "one waiter of limit 10 took the 5 jobs");
        assertEquals(claims + 1, store.statementsExecuted(Stmt.JOB_CLAIM), "in one claim statement");
        // the other three were not woken for jobs the first one took: they wait on
        assertEquals(before + 3, wakeups.waiting());
        long jobs = 0;
        for (CompletableFuture<Http.Reply> w : waiting) {
            jobs += w.get(20, TimeUnit.SECONDS).body().get("jobs").size();  // the rest at their deadline
        }
        assertEquals(5, jobs, "the other three claims answered empty");
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void waitersThatTakeOneJobEachAreWokenOnePerJob() throws Exception {
        int before = wakeups.waiting();
        List<CompletableFuture<Http.Reply>> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(claimAsync("lp-single", 15));  // limit 1 (the default)
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.waiting() >= before + 3);
        List<Map<String, Object>> three = List.of(Map.of("queue", "lp-single", "type", "t"),
                Map.of("queue", "lp-single", "type", "t"), Map.of("queue", "lp-single", "type", "t"));
        assertEquals(200, http.post("/jobs/batch", Map.of("jobs", three)).status());
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (CompletableFuture<Http.Reply> w : waiting) {
            // each well before its 15 s deadline
            Http.Reply r = w.get(10, TimeUnit.SECONDS);
            assertEquals(1, r.body().get("jobs").size());
            ids.add(r.body().get("jobs").get(0).get("id").asText());
        }
        assertEquals(3, ids.size(), "three waiters, three different jobs");
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void aQuietQueuesWaiterGetsItsDueJobAmongManyOtherWaiters() throws Exception {
        int before = wakeups.waiting();
        List<CompletableFuture<Http.Reply>> others = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            others.add(claimAsync("lp-crowd", 15));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.waiting() >= before + 8);
        String id = http.post("/jobs", Map.of("queue", "lp-rare", "type", "t", "delaySeconds", 2)).body().get("id").asText();
        Http.Reply r = claimAsync("lp-rare", 12).get(30, TimeUnit.SECONDS);
        assertEquals(1, r.body().get("jobs").size(), "the rare queue's waiter got its job before its deadline");
        assertEquals(id, r.body().get("jobs").get(0).get("id").asText());
        for (CompletableFuture<Http.Reply> o : others) {
            assertEquals(0, o.get(30, TimeUnit.SECONDS).body().get("jobs").size());
        }
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void hundredIdleLongPollsCostNoStatementAndTheIdleInstanceUnderHalfAStatementASecond() throws Exception {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "SQL Server has no NOTIFY: its due poll runs while claims wait");
        JdbcStores store = database.start();
        int before = wakeups.waiting();
        List<CompletableFuture<Http.Reply>> claims = new ArrayList<>();
        pool = Executors.newFixedThreadPool(100);
        for (int i = 0; i < 100; i++) {
            claims.add(claimOnPool("lp-idle", 1, 20));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> wakeups.waiting() >= before + 100);
        // the statements long-polling can cause: claims and the shared due poll
        java.util.function.LongSupplier pollCost = () -> store.statementsExecuted(Stmt.JOB_CLAIM)
                + store.statementsExecuted(Stmt.QUEUE_LOCK_CAPPED) + store.statementsExecuted(Stmt.QUEUE_LIST_CAPPED)
                + store.statementsExecuted(Stmt.JOB_ANY_DUE);
        // and everything the instance runs (lease sweeper, gauges, retention)
        java.util.function.LongSupplier all = () -> java.util.Arrays.stream(Stmt.values())
                .mapToLong(store::statementsExecuted).sum();
        long startCount = pollCost.getAsLong();
        long startAll = all.getAsLong();
        java.util.Map<Stmt, Long> startEach = new java.util.EnumMap<>(Stmt.class);
        for (Stmt s : Stmt.values()) {
            startEach.put(s, store.statementsExecuted(s));
        }
        long startNanos = System.nanoTime();
        // Measured: no long-poll statement and 4 statements in all in 12 s (3 lease-sweeper passes,
        // at most 4 s apart, and a gauge refresh). Allowed: one check in flight, and half a
        // statement a second plus two for passes that happen to straddle the window's ends.
        try {
            await().during(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(13)).until(() -> {
                double seconds = (System.nanoTime() - startNanos) / 1e9;
                return pollCost.getAsLong() - startCount <= 1
                        && all.getAsLong() - startAll <= Math.ceil(seconds * 0.5) + 2;
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // say which statements ran, so that a failure names its cause
            StringBuilder ran = new StringBuilder();
            for (Stmt s : Stmt.values()) {
                long n = store.statementsExecuted(s) - startEach.get(s);
                if (n > 0) {
                    ran.append(' ').append(s).append('=').append(n);
                }
            }
            throw new AssertionError("statements run while 100 long-polls idled, in "
                    + String.format("%.1f s:", (System.nanoTime() - startNanos) / 1e9) + ran, e);
        }
        System.out.printf("100 idle long-polls: %d long-poll statements, %d statements in all, in %.1f s%n",
                pollCost.getAsLong() - startCount, all.getAsLong() - startAll, (System.nanoTime() - startNanos) / 1e9);
        for (CompletableFuture<Http.Reply> c : claims) {
            assertEquals(0, c.get(30, TimeUnit.SECONDS).body().get("jobs").size());
        }
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups or statement counters")
    void longPollsOnAMistypedQueueDoNotAskTheDatabaseAtEveryAnswer() {
        JdbcStores store = database.start();
        String typo = "lp-typo-" + System.nanoTime();
        long before = store.statementsExecuted(Stmt.QUEUE_FIND);
        for (int i = 0; i < 20; i++) {
            Http.Reply r = http.send("POST", "/claim", Map.of("workerId", "typo-" + i, "queues", List.of(typo)),
                    Duration.ofSeconds(30));
            assertEquals(200, r.status());
            assertEquals(typo, r.body().get("unknownQueues").get(0).asText(), "every answer names it");
        }
        long asked = store.statementsExecuted(Stmt.QUEUE_FIND) - before;
        // one look per five seconds at most; 20 quick answers need one, two if a boundary falls in between
        org.junit.jupiter.api.Assertions.assertTrue(asked >= 1 && asked <= 2,
                "20 empty answers asked the database " + asked + " times");
        // an enqueue makes the queue exist at once
        assertEquals(201, http.post("/jobs", Map.of("queue", typo, "type", "t")).status());
        Http.Reply claimed = http.send("POST", "/claim", Map.of("workerId", "typo", "queues", List.of(typo)),
                Duration.ofSeconds(30));
        assertEquals(1, claimed.body().get("jobs").size());
        Http.Reply empty = http.send("POST", "/claim", Map.of("workerId", "typo", "queues", List.of(typo)),
                Duration.ofSeconds(30));
        org.junit.jupiter.api.Assertions.assertNull(empty.body().get("unknownQueues"), "known now: " + empty.body());
    }
}
