package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import io.readpast.WebhookReceiver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Schedules, webhooks, rate limits and ordered groups across three broker processes on one
 * database, one of them killed (kill -9) in the middle:
 * <ul>
 * <li>an every-second schedule fires each slot exactly once, whichever instances are alive;</li>
 * <li>every completion webhook reaches the local receiver (at least once, same delivery id on a
 * repeat), including those a killed instance had leased;</li>
 * <li>a rate limit holds for claims spread over all instances;</li>
 * <li>a group's jobs run one at a time, in order, with workers spread over all instances.</li>
 * </ul>
 */
class FeaturesMultiInstanceIT {

    private static final int BROKERS = 3;
    private static final Duration WAIT = Duration.ofMinutes(2);
    private static Brokers brokers;

    @BeforeAll
    static void start() {
        brokers = Brokers.start("features", BROKERS, Map.of(
                "READPAST_WEBHOOK_SECRET", "faults-webhook-secret",
                "READPAST_WEBHOOKS_BACKOFF_BASE", "PT0.5S",
                "READPAST_WEBHOOKS_BACKOFF_CAP", "PT2S",
                "READPAST_WEBHOOKS_LEASE_SECONDS", "5",
                "READPAST_WEBHOOKS_TIMEOUT", "PT2S",
                // deliveries a killed instance had leased are taken over at the next periodic look
                "READPAST_SWEEPER_TIMERS_INTERVAL", "2s"));
    }

    @AfterAll
    static void stop() {
        if (brokers != null) {
            brokers.close();
        }
    }

    @BeforeEach
    void clean() {
        FaultDb.clean();
        try (Connection c = FaultDb.connect(); Statement s = c.createStatement()) {
            for (String t : List.of("readpast_schedule", "readpast_schedule_fire", "readpast_webhook", "readpast_unique_key")) {
                s.executeUpdate("DELETE FROM " + t);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A broker that is alive, round robin from {@code i}. */
    private static URI alive(int i) {
        for (int k = 0; k < BROKERS; k++) {
            BrokerProcess p = brokers.get(Math.floorMod(i + k, BROKERS));
            if (p.alive()) {
                return p.base;
            }
        }
        throw new IllegalStateException("no broker alive");
    }

    /** POST to a live broker, trying the next one when a broker does not answer. */
    private static Api.Reply post(int i, String path, Object body) {
        return send(i, "POST", path, body);
    }

    private static Api.Reply put(int i, String path, Object body) {
        return send(i, "PUT", path, body);
    }

    private static Api.Reply send(int i, String method, String path, Object body) {
        for (int k = 0; k < BROKERS * 3; k++) {
            try {
                return brokers.api.send(alive(i + k), method, path, body, Duration.ofSeconds(30));
            } catch (IOException e) {
                // that broker died under us: the next one
            }
        }
        throw new IllegalStateException("no broker answered " + method + " " + path);
    }

    /** The jobs a claim answered (none when the answer was not a 200, e.g. a 503 while a broker dies). */
    private static Iterable<JsonNode> jobs(Api.Reply r) {
        return r.status() == 200 && r.body() != null ? r.body().get("jobs") : List.of();
    }

    private static long millis(Object time) {
        if (time instanceof java.util.Date d) {
            return d.getTime();
        }
        if (time instanceof java.time.OffsetDateTime t) {
            return t.toInstant().toEpochMilli();
        }
        throw new IllegalStateException("not a time: " + time);
    }

    @Test
    void aScheduleFiresEachSlotOnceWhileAnInstanceIsKilled() {
        restartDead();
        assertEquals(200, put(0, "schedules/mi-tick",
                Map.of("cron", "* * * * * *", "catchUp", "ALL", "job", Map.of("queue", "mi-sched", "type", "tick"))).status());
        await().atMost(WAIT).until(() -> FaultDb.count("SELECT count(*) FROM readpast_job WHERE created_by = 'schedule:mi-tick'") >= 8);
        brokers.get(1).kill();
        long before = FaultDb.count("SELECT count(*) FROM readpast_job WHERE created_by = 'schedule:mi-tick'");
        await().atMost(WAIT).until(() -> FaultDb.count(
                "SELECT count(*) FROM readpast_job WHERE created_by = 'schedule:mi-tick'") >= before + 8);
        assertEquals(200, post(0, "schedules/mi-tick/pause", null).status());
        long jobs = FaultDb.count("SELECT count(*) FROM readpast_job WHERE created_by = 'schedule:mi-tick'");
        assertEquals(jobs, FaultDb.count("SELECT count(DISTINCT due_at) FROM readpast_job WHERE created_by = 'schedule:mi-tick'"),
                "no slot enqueued twice");
        assertEquals(jobs, FaultDb.count(
                "SELECT count(*) FROM readpast_schedule_fire WHERE schedule_name = 'mi-tick' AND outcome = 1"));
        // no slot missed between the first and the last (ALL catches up what a dead instance left)
        List<Object[]> span = FaultDb.rows("SELECT min(due_at), max(due_at) FROM readpast_job WHERE created_by = 'schedule:mi-tick'");
        long first = millis(span.get(0)[0]);
        long last = millis(span.get(0)[1]);
        assertEquals((last - first) / 1000 + 1, jobs, "one job for every second from first to last");
    }

    @Test
    void everyWebhookArrivesAndRepeatsCarryTheirId() throws Exception {
        restartDead();
        try (WebhookReceiver receiver = new WebhookReceiver()) {
            int n = 300;
            List<Map<String, Object>> jobs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                jobs.add(Map.of("queue", "mi-wh", "type", "t", "webhookUrl", receiver.url("/mi")));
            }
            assertEquals(200, post(0, "jobs/batch", Map.of("jobs", jobs)).status());
            AtomicInteger done = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int w = 0; w < 6; w++) {
                    int me = w;
                    workers.add(pool.submit(() -> {
                        long deadline = System.nanoTime() + WAIT.toNanos();
                        while (done.get() < n && System.nanoTime() < deadline) {
                            Api.Reply r = post(me, "claim", Map.of("workerId", "w" + me, "queues", List.of("mi-wh"), "limit", 10));
                            for (JsonNode j : jobs(r)) {
                                if (post(me, "jobs/" + j.get("id").asText() + "/complete",
                                        Map.of("leaseId", j.get("leaseId").asText())).status() == 200) {
                                    done.incrementAndGet();
                                }
                            }
                        }
                        return null;
                    }));
                }
                // kill an instance while deliveries are being sent
                await().atMost(WAIT).until(() -> receiver.received().size() >= 30);
                brokers.get(2).kill();
                for (Future<?> f : workers) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(n, done.get());
            await().atMost(WAIT).until(() -> FaultDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 2") == n);
            Map<String, Set<String>> idsByJob = new HashMap<>();
            for (WebhookReceiver.Received r : receiver.received("/mi")) {
                idsByJob.computeIfAbsent(r.json().path("job").path("id").asText(), k -> new HashSet<>())
                        .add(r.header("Readpast-Delivery"));
            }
            assertEquals(n, idsByJob.size(), "every job's webhook arrived");
            idsByJob.forEach((job, ids) -> assertEquals(1, ids.size(), "job " + job + ": repeats carry one delivery id"));
            System.out.printf("webhooks: %d jobs, %d POSTs (%d repeats after the kill)%n", n,
                    receiver.received("/mi").size(), receiver.received("/mi").size() - n);
        }
    }

    @Test
    void aRateLimitHoldsAcrossInstances() throws Exception {
        restartDead();
        assertEquals(200, put(0, "queues/mi-rate",
                Map.of("rateLimit", 40, "ratePeriodSeconds", 3600)).status());
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            jobs.add(Map.of("queue", "mi-rate", "type", "t"));
        }
        assertEquals(200, post(0, "jobs/batch", Map.of("jobs", jobs)).status());
        ExecutorService pool = Executors.newFixedThreadPool(9);
        AtomicInteger claimed = new AtomicInteger();
        try {
            List<Future<?>> claimers = new ArrayList<>();
            for (int w = 0; w < 9; w++) {
                int me = w;
                claimers.add(pool.submit(() -> {
                    for (int k = 0; k < 20; k++) {
                        Api.Reply r = post(me, "claim", Map.of("workerId", "w" + me, "queues", List.of("mi-rate"), "limit", 3));
                        for (JsonNode ignored : jobs(r)) {
                            claimed.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : claimers) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(40, claimed.get());
        assertEquals(40, FaultDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'mi-rate' AND status = 1"));
    }

    @Test
    void aGroupRunsOneJobAtATimeInOrderAcrossInstances() throws Exception {
        restartDead();
        int n = 40;
        for (int i = 1; i <= n; i++) {
            assertEquals(201, post(i, "jobs", Map.of("queue", "mi-group", "type", "t", "groupKey", "g",
                    "payload", Map.of("n", i))).status());
        }
        record Run(int n, long claimedAt, long completingAt) {
        }
        List<Run> runs = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 6; w++) {
                int me = w;
                workers.add(pool.submit(() -> {
                    long deadline = System.nanoTime() + WAIT.toNanos();
                    while (runs.size() < n && System.nanoTime() < deadline) {
                        Api.Reply r = post(me, "claim", Map.of("workerId", "w" + me, "queues", List.of("mi-group"), "limit", 5));
                        long claimedAt = System.nanoTime();
                        for (JsonNode j : jobs(r)) {
                            runs.add(new Run(j.get("payload").get("n").asInt(), claimedAt, System.nanoTime()));
                            assertEquals(200, post(me, "jobs/" + j.get("id").asText() + "/complete",
                                    Map.of("leaseId", j.get("leaseId").asText())).status());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : workers) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        List<Run> sorted = new ArrayList<>(runs);
        sorted.sort((a, b) -> Long.compare(a.claimedAt(), b.claimedAt()));
        assertEquals(n, sorted.size());
        for (int i = 0; i < n; i++) {
            assertEquals(i + 1, sorted.get(i).n(), "enqueue order");
            if (i > 0) {
                assertTrue(sorted.get(i).claimedAt() > sorted.get(i - 1).completingAt(), "one at a time");
            }
        }
    }

    /** Replaces killed brokers, so that each test starts with all instances. */
    private static void restartDead() {
        boolean any = false;
        for (int i = 0; i < BROKERS; i++) {
            if (!brokers.get(i).alive()) {
                any = true;
            }
        }
        if (any) {
            brokers.close();
            start();
        }
    }
}
