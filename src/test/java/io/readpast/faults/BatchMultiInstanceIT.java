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
 * Batches and dependencies across three broker processes on one database (docs/batches.md):
 * <ul>
 * <li>workers on every instance acknowledge the jobs of 20 batches at once: each batch's
 * callback job is enqueued exactly once, and its webhook (batch.fired) arrives once, with
 * one delivery id;</li>
 * <li>a broker killed (kill -9) while its workers hold leases on a batch's jobs leaves nothing
 * stuck: the leases expire, the jobs run again elsewhere, the batch fires once, and the job
 * waiting for the batch is released.</li>
 * </ul>
 */
class BatchMultiInstanceIT {

    private static final int BROKERS = 3;
    private static final Duration WAIT = Duration.ofMinutes(2);
    private static Brokers brokers;

    @BeforeAll
    static void start() {
        brokers = Brokers.start("batches", BROKERS, Map.of(
                "READPAST_WEBHOOK_SECRET", "faults-webhook-secret",
                "READPAST_WEBHOOKS_BACKOFF_BASE", "PT0.5S",
                "READPAST_WEBHOOKS_BACKOFF_CAP", "PT2S",
                "READPAST_WEBHOOKS_TIMEOUT", "PT2S",
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
            for (String t : List.of("readpast_webhook", "readpast_batch", "readpast_job_dep")) {
                s.executeUpdate("DELETE FROM " + t);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static URI alive(int i) {
        for (int k = 0; k < BROKERS; k++) {
            BrokerProcess p = brokers.get(Math.floorMod(i + k, BROKERS));
            if (p.alive()) {
                return p.base;
            }
        }
        throw new IllegalStateException("no broker alive");
    }

    /** POST to broker {@code i}, or the next live one when it does not answer. */
    private static Api.Reply post(int i, String path, Object body) {
        for (int k = 0; k < BROKERS * 3; k++) {
            try {
                return brokers.api.send(alive(i + k), "POST", path, body, Duration.ofSeconds(30));
            } catch (IOException e) {
                // that broker died under us: the next one
            }
        }
        throw new IllegalStateException("no broker answered POST " + path);
    }

    private static Iterable<JsonNode> jobs(Api.Reply r) {
        return r.status() == 200 && r.body() != null ? r.body().get("jobs") : List.of();
    }

    private static void restartDead() {
        for (int i = 0; i < BROKERS; i++) {
            if (!brokers.get(i).alive()) {
                brokers.close();
                start();
                return;
            }
        }
    }

    /**
     * Workers spread over the live instances claim from {@code queue} and acknowledge with their
     * next claim until {@code n} jobs were acknowledged; {@code during} runs once some were.
     */
    private static void drain(String queue, int n, int workers, Integer leaseSeconds, Runnable during) throws Exception {
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int me = w;
                running.add(pool.submit(() -> {
                    long deadline = System.nanoTime() + WAIT.toNanos();
                    List<Map<String, Object>> ack = List.of();
                    while (done.get() < n && System.nanoTime() < deadline) {
                        Map<String, Object> body = new HashMap<>(Map.of("workerId", "w" + me, "queues", List.of(queue),
                                "limit", 10));
                        if (leaseSeconds != null) {
                            body.put("leaseSeconds", leaseSeconds);
                        }
                        if (!ack.isEmpty()) {
                            body.put("ack", ack);
                        }
                        Api.Reply r = post(me, "claim", body);
                        if (r.status() == 200 && r.body() != null) {
                            for (JsonNode a : r.body().path("acks")) {
                                if (a.path("status").asInt() == 200) {
                                    done.incrementAndGet();
                                }
                            }
                        }
                        List<Map<String, Object>> next = new ArrayList<>();
                        for (JsonNode j : jobs(r)) {
                            next.add(Map.of("id", j.get("id").asText(), "leaseId", j.get("leaseId").asText()));
                        }
                        ack = next;
                    }
                    return null;
                }));
            }
            if (during != null) {
                await().atMost(WAIT).until(() -> done.get() >= Math.min(50, n / 4));
                during.run();
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void everyCallbackFiresExactlyOnceUnderConcurrentAcksOnThreeInstances() throws Exception {
        restartDead();
        try (WebhookReceiver receiver = new WebhookReceiver()) {
            int batches = 20;
            int each = 50;
            Set<String> ids = new HashSet<>();
            for (int b = 0; b < batches; b++) {
                List<Map<String, Object>> jobs = new ArrayList<>();
                for (int k = 0; k < each; k++) {
                    jobs.add(Map.of("queue", "mib", "type", "t", "payload", Map.of("b", b, "k", k)));
                }
                Api.Reply r = post(b, "batches", Map.of("jobs", jobs, "webhookUrl", receiver.url("/batch"),
                        "callback", Map.of("queue", "mib-done", "type", "done")));
                assertEquals(201, r.status(), r.toString());
                ids.add(r.body().get("id").asText());
            }
            drain("mib", batches * each, 12, null, null);
            await().atMost(WAIT).until(() -> FaultDb.count("SELECT count(*) FROM readpast_batch WHERE finished_at IS NOT NULL")
                    == batches);
            assertEquals(batches, FaultDb.count("SELECT count(*) FROM readpast_batch WHERE fired_at IS NOT NULL "
                    + "AND succeeded = ? AND total = ?", each, each));
            assertEquals(batches, FaultDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'mib-done'"),
                    "one callback job per batch");
            assertEquals(batches, FaultDb.count("SELECT count(DISTINCT b.callback_job_id) FROM readpast_batch AS b "
                    + "JOIN readpast_job AS j ON j.id = b.callback_job_id"));
            assertEquals(batches, FaultDb.count("SELECT count(*) FROM readpast_webhook WHERE event = 'batch.fired'"),
                    "one webhook per batch in the outbox");
            await().atMost(WAIT).until(() -> FaultDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 2")
                    == batches);
            Map<String, Set<String>> deliveries = new HashMap<>();
            for (WebhookReceiver.Received r : receiver.received("/batch")) {
                assertEquals("batch.fired", r.json().path("event").asText());
                assertEquals(each, r.json().path("batch").path("succeeded").asInt());
                deliveries.computeIfAbsent(r.json().path("batch").path("id").asText(), k -> new HashSet<>())
                        .add(r.header("Readpast-Delivery"));
            }
            assertEquals(ids, deliveries.keySet(), "every batch's webhook arrived");
            deliveries.forEach((b, d) -> assertEquals(1, d.size(), "batch " + b + ": one delivery id"));
        }
    }

    @Test
    void aBrokerKilledMidBatchLeavesNothingStuck() throws Exception {
        restartDead();
        int n = 300;
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            jobs.add(Map.of("queue", "mik", "type", "t", "payload", k));
        }
        Api.Reply created = post(0, "batches", Map.of("jobs", jobs, "callback", Map.of("queue", "mik-done", "type", "done")));
        assertEquals(201, created.status(), created.toString());
        String batch = created.body().get("id").asText();
        Api.Reply waiting = post(1, "jobs", Map.of("queue", "mik-after", "type", "after",
                "dependsOn", Map.of("batches", List.of(batch))));
        assertEquals(201, waiting.status(), waiting.toString());
        assertEquals("WAITING", waiting.body().get("status").asText());
        String after = waiting.body().get("id").asText();
        // short leases: what the killed instance's workers held comes back within seconds
        drain("mik", n, 9, 3, () -> brokers.get(1).kill());
        await().atMost(WAIT).until(() -> FaultDb.count("SELECT count(*) FROM readpast_batch WHERE id = ? "
                + "AND finished_at IS NOT NULL", Long.parseLong(batch)) == 1);
        assertEquals(1, FaultDb.count("SELECT count(*) FROM readpast_batch WHERE id = ? AND fired_at IS NOT NULL "
                + "AND succeeded + dead = total AND total = ?", Long.parseLong(batch), n));
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job WHERE batch_id = ?", Long.parseLong(batch)),
                "no job of the batch is left in the hot table");
        assertEquals(1, FaultDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'mik-done'"), "one callback");
        assertEquals(1, FaultDb.count("SELECT count(*) FROM readpast_job WHERE id = ? AND status = 0", Long.parseLong(after)),
                "the job waiting for the batch was released");
        assertTrue(FaultDb.count("SELECT count(*) FROM readpast_job_dep WHERE outcome IS NULL") == 0,
                "no edge is left unsettled");
    }
}
