package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker frozen (SIGSTOP) in the middle of a claim on a capped queue, holding that queue's row
 * lock in an open transaction, stalls no other broker: claims on the capped queue, claims naming
 * no queue and claims on other queues all answer within a second, more at once than the claim
 * gate has slots, and the other queues keep draining. When the frozen broker resumes, every job
 * still runs exactly once.
 */
class FrozenBrokerIT {

    private static final long ANSWER_MS = 1_000;

    @Test
    void aBrokerFrozenMidClaimHoldingAQueueLockStallsNothingElse() throws Exception {
        Assumptions.assumeTrue(FaultDb.isPostgres(), "reads pg_locks to find the frozen claim");
        FaultDb.ensureDatabase();
        if (FaultDb.schemaExists()) {
            FaultDb.clean();
        }
        try (Brokers brokers = Brokers.start("frozen", 2)) {
            Api api = brokers.api;
            BrokerProcess victim = brokers.get(1);
            assertEquals(200, api.put(brokers.uri(0), "queues/capped", Map.of("maxWorkers", 100)).status());
            int capped = 1500;
            int free = 1500;
            for (int i = 0; i < capped / 500; i++) {
                Load.enqueueBatch(api, brokers.uri(0), "capped", "t", 500, k -> Map.of("k", k));
            }
            for (int i = 0; i < free / 500; i++) {
                Load.enqueueBatch(api, brokers.uri(0), "free", "t", 500, k -> Map.of("k", k));
            }
            Set<Long> done = ConcurrentHashMap.newKeySet();
            AtomicInteger twice = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                // the victim claims on the capped queue without pause, so it is often mid-claim
                List<Future<?>> victims = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    victims.add(pool.submit(() -> work(api, victim, List.of("capped"), 5, done, twice, stop)));
                }
                await("the victim works the capped queue").atMost(Duration.ofSeconds(30))
                        .until(() -> done.size() > 20);
                // freeze it, until it is frozen while holding the capped queue's row lock
                boolean holding = false;
                for (int tries = 0; tries < 200 && !holding; tries++) {
                    signal("STOP", victim.pid());
                    Thread.sleep(50);
                    holding = FaultDb.count("SELECT count(*) FROM pg_stat_activity AS a JOIN pg_locks AS l ON l.pid = a.pid "
                            + "WHERE a.state = 'idle in transaction' AND l.locktype = 'relation' "
                            + "AND l.relation = 'readpast_queue'::regclass AND l.mode = 'RowShareLock'") > 0;
                    if (!holding) {
                        signal("CONT", victim.pid());
                        Thread.sleep(ThreadLocalRandom.current().nextInt(5, 40));
                    }
                }
                Assumptions.assumeTrue(holding, "could not freeze the victim inside a claim transaction in 200 tries");
                long frozenAt = System.nanoTime();
                // the other broker: claims on the held queue, on every queue, and on another queue
                List<Future<Long>> timed = new ArrayList<>();
                for (int i = 0; i < 12; i++) {
                    Map<String, Object> body = switch (i % 3) {
                        case 0 -> Map.of("workerId", "t" + i, "queues", List.of("capped"), "limit", 1);
                        case 1 -> Map.of("workerId", "t" + i, "limit", 1);
                        default -> Map.of("workerId", "t" + i, "queues", List.of("free"), "limit", 1);
                    };
                    timed.add(pool.submit(() -> {
                        long start = System.nanoTime();
                        Api.Reply r = api.post(brokers.uri(0), "claim", body);
                        assertEquals(200, r.status(), r::toString);
                        for (JsonNode job : r.body().get("jobs")) {
                            complete(api, brokers.get(0), job, done, twice);
                        }
                        return (System.nanoTime() - start) / 1_000_000;
                    }));
                }
                for (Future<Long> f : timed) {
                    long ms = f.get();
                    assertTrue(ms < ANSWER_MS, "a claim on the other broker waited for the frozen one: " + ms + " ms");
                }
                // the free queue drains on the other broker while the victim stays frozen
                long before = done.size();
                List<Future<?>> others = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    others.add(pool.submit(() -> work(api, brokers.get(0), List.of("free"), 20, done, twice, stop)));
                }
                Thread.sleep(3000);
                long drained = done.size() - before;
                assertTrue(drained > 100, "the other queues kept draining: " + drained + " jobs in 3 s");
                assertTrue(System.nanoTime() - frozenAt < Duration.ofSeconds(30).toNanos());
                signal("CONT", victim.pid());
                // everything drains, on both brokers, each job once
                others.add(pool.submit(() -> work(api, brokers.get(0), null, 20, done, twice, stop)));
                await("every job done").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                        .until(() -> done.size() >= capped + free);
                stop.set(true);
                Load.join(others, 60);
                Load.join(victims, 60);
            } finally {
                stop.set(true);
                signal("CONT", victim.pid());
                Load.stop(pool);
            }
            assertEquals(0, twice.get(), "no job completed twice");
            assertEquals(capped + free, FaultDb.count("SELECT count(*) FROM readpast_job_archive WHERE status = 3"));
            assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job"));
        }
    }

    private static Object work(Api api, BrokerProcess broker, List<String> queues, int limit, Set<Long> done,
                               AtomicInteger twice, AtomicBoolean stop) throws Exception {
        while (!stop.get()) {
            Map<String, Object> body = queues == null ? Map.of("workerId", "w-" + broker.name, "limit", limit)
                    : Map.of("workerId", "w-" + broker.name, "queues", queues, "limit", limit);
            Api.Reply r;
            try {
                r = api.post(broker.base, "claim", body);
            } catch (java.io.IOException e) {
                continue; // the frozen broker's own threads time out: try again
            }
            if (r.status() != 200) {
                continue;
            }
            for (JsonNode job : r.body().get("jobs")) {
                complete(api, broker, job, done, twice);
            }
            if (r.body().get("jobs").isEmpty()) {
                Thread.sleep(20);
            }
        }
        return null;
    }

    private static void complete(Api api, BrokerProcess broker, JsonNode job, Set<Long> done, AtomicInteger twice)
            throws java.io.IOException {
        Api.Reply c = api.post(broker.base, "jobs/" + job.get("id").asText() + "/complete",
                Map.of("leaseId", job.get("leaseId").asText()));
        if (c.status() == 200 && !done.add(job.get("id").asLong())) {
            twice.incrementAndGet();
        }
    }

    private static void signal(String sig, long pid) throws Exception {
        Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
        p.waitFor();
    }
}
