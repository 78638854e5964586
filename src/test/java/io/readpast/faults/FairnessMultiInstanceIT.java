package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fair queue's per-key cap across broker processes: three brokers on one database, 32 HTTP
 * workers long-polling over them, 50 keys with keyMaxWorkers 2 and the queue's maxWorkers 60. The
 * LEASED and PROCESSING jobs of every key, and of the queue, are sampled throughout from the
 * database and never exceed 2 and 60; every job is done. Claim merging is on (the default) and
 * its metrics show claims sharing statements: the caps hold because the shared statement
 * enforces them, whatever the number of requests it serves.
 */
class FairnessMultiInstanceIT {

    private static final int BROKERS = 3;
    private static final int WORKERS = 32;
    private static final int KEYS = 50;
    private static final int JOBS_PER_KEY = 40;
    private static final int KEY_MAX = 2;
    private static final int QUEUE_MAX = 60;
    private static final String QUEUE = "mi-fair";

    @RegisterExtension
    static final FaultSuite SUITE = FaultSuite.brokers("fair", BROKERS);

    @Test
    void noKeyEverHasMoreThanKeyMaxWorkersAtWorkAcrossThreeBrokers() throws Exception {
        Api api = SUITE.brokers().api;
        Api.Reply put = api.put(SUITE.brokers().uri(0), "queues/" + QUEUE, Map.of("keyMaxWorkers", KEY_MAX,
                "maxWorkers", QUEUE_MAX));
        assertEquals(200, put.status(), put::toString);
        for (int k = 0; k < KEYS; k++) {
            List<Map<String, Object>> jobs = new ArrayList<>();
            for (int i = 0; i < JOBS_PER_KEY; i++) {
                jobs.add(Map.of("queue", QUEUE, "type", "t", "fairnessKey", "tenant-" + k));
            }
            Api.Reply r = api.postOrFail(SUITE.brokers().uri(k % BROKERS), "jobs/batch", Map.of("jobs", jobs));
            assertEquals(200, r.status(), r::toString);
        }
        int total = KEYS * JOBS_PER_KEY;

        AtomicInteger maxPerKey = new AtomicInteger();
        AtomicInteger maxInQueue = new AtomicInteger();
        long[][] mergedBefore = new long[BROKERS][];
        for (int b = 0; b < BROKERS; b++) {
            mergedBefore[b] = api.merged(SUITE.brokers().uri(b), "claims");
        }
        AtomicLong samples = new AtomicLong();
        AtomicInteger completed = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
        // every worker's first claim is held until all have claimed once: 32 claims of 3 ask for 96
        // with nothing completed, so the queue's cap is what stops them, and the last one to arrive
        // counts, from the database, exactly the cap at work (the sampler alone may miss a peak)
        AtomicInteger atWorkAfterFirstClaims = new AtomicInteger(-1);
        CyclicBarrier firstClaims = new CyclicBarrier(WORKERS, () -> {
            try (Connection b = FaultDb.connect();
                 PreparedStatement count = b.prepareStatement(
                         "SELECT count(*) FROM readpast_job WHERE queue = ? AND status IN (1, 2)")) {
                count.setString(1, QUEUE);
                try (ResultSet rs = count.executeQuery()) {
                    rs.next();
                    atWorkAfterFirstClaims.set(rs.getInt(1));
                    maxInQueue.accumulateAndGet(rs.getInt(1), Math::max);
                }
            } catch (SQLException e) {
                problems.add("first-claims count: " + e);
            }
        });
        try (Connection c = FaultDb.connect()) {
            PreparedStatement active = c.prepareStatement("SELECT fairness_key, count(*) FROM readpast_job "
                    + "WHERE queue = ? AND status IN (1, 2) GROUP BY fairness_key");
            active.setString(1, QUEUE);
            sampler.scheduleWithFixedDelay(() -> {
                try (ResultSet rs = active.executeQuery()) {
                    int inQueue = 0;
                    while (rs.next()) {
                        inQueue += rs.getInt(2);
                        if (rs.getInt(2) > KEY_MAX) {
                            problems.add("key " + rs.getString(1) + " had " + rs.getInt(2) + " jobs at work");
                        }
                        maxPerKey.accumulateAndGet(rs.getInt(2), Math::max);
                    }
                    if (inQueue > QUEUE_MAX) {
                        problems.add("the queue had " + inQueue + " jobs at work");
                    }
                    maxInQueue.accumulateAndGet(inQueue, Math::max);
                    samples.incrementAndGet();
                } catch (SQLException e) {
                    problems.add("sampler: " + e);
                }
            }, 0, 2, TimeUnit.MILLISECONDS);
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                URI base = SUITE.brokers().uri(w % BROKERS);
                String id = "fair-w" + w;
                running.add(workers.submit(() -> {
                    // a worker holds its previous batch while it claims the next one, so that keys
                    // have jobs at work when they come round again (the cap is exercised)
                    List<JsonNode> held = new ArrayList<>();
                    boolean first = true;
                    while (!stop.get()) {
                        Api.Reply r;
                        try {
                            r = api.post(base, "claim", Map.of("workerId", id, "queues", List.of(QUEUE), "limit", 3,
                                    "leaseSeconds", 60, "waitSeconds", 1));
                        } catch (IOException e) {
                            problems.add(id + " claim: " + e);
                            continue;
                        }
                        if (r.status() != 200) {
                            problems.add(id + " claim answered " + r);
                            continue;
                        }
                        List<JsonNode> next = new ArrayList<>();
                        r.body().get("jobs").forEach(next::add);
                        if (first) {
                            first = false;
                            firstClaims.await(2, TimeUnit.MINUTES);
                        }
                        for (JsonNode job : held) {
                            try {
                                Api.Reply done = api.post(base, "jobs/" + job.get("id").asText() + "/complete",
                                        Map.of("leaseId", job.get("leaseId").asText()));
                                if (done.status() == 200) {
                                    completed.incrementAndGet();
                                } else {
                                    problems.add(id + " complete answered " + done);
                                }
                            } catch (IOException e) {
                                problems.add(id + " complete: " + e);
                            }
                        }
                        held = next;
                    }
                    return null;
                }));
            }
            await("all " + total + " jobs done").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(200))
                    .until(() -> completed.get() >= total || !problems.isEmpty());
            stop.set(true);
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
            // the sampler stops before its connection closes
            sampler.shutdown();
            assertTrue(sampler.awaitTermination(10, TimeUnit.SECONDS), "the sampler stopped");
        } finally {
            stop.set(true);
            sampler.shutdownNow();
            workers.shutdownNow();
        }
        long claims = 0;
        long statements = 0;
        for (int b = 0; b < BROKERS; b++) {
            long[] after = api.merged(SUITE.brokers().uri(b), "claims");
            statements += after[0] - mergedBefore[b][0];
            claims += after[1] - mergedBefore[b][1];
        }
        System.out.printf("fair cap across %d brokers: %d jobs by %d workers, %d samples, at most %d of a key and %d of "
                        + "the queue at work; %d claims in %d claim statements%n",
                BROKERS, completed.get(), WORKERS, samples.get(), maxPerKey.get(), maxInQueue.get(), claims, statements);
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertEquals(QUEUE_MAX, atWorkAfterFirstClaims.get(),
                "32 first claims of 3 with nothing completed: the queue's cap, exactly, at work");
        assertEquals(total, completed.get(), "every job done once");
        assertTrue(samples.get() > 100, "sampled throughout: " + samples.get());
        assertEquals(KEY_MAX, maxPerKey.get(), "the key cap was reached and never passed");
        assertEquals(QUEUE_MAX, maxInQueue.get(), "the queue cap was reached and never passed");
        assertTrue(claims > statements, "claims shared statements: " + claims + " claims in " + statements);
    }
}
