package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One of three brokers is killed with SIGKILL mid-load (DESIGN.md section 4, invariant 4).
 * Workers move to another instance on connection errors; two "sidecar" workers that live on the
 * killed broker's host die with it, abandoning the jobs they hold. Every job still completes
 * exactly once: the abandoned leases (and any the dead broker handed out but never delivered)
 * return to the queue when they expire, and no job stays LEASED past its expiry.
 */
class BrokerCrashIT {

    private static final int BROKERS = 3;
    private static final int JOBS = 3000;
    private static final int WORKERS = 9;
    private static final int SIDECARS = 2;
    private static final int LEASE_SECONDS = 5;
    private static final String QUEUE = "bc";
    private static final String STUCK_SQL = "SELECT count(*) FROM readpast_job WHERE status IN (1, 2) "
            + "AND lease_expires_at < now() - interval '5 seconds'";

    @RegisterExtension
    static final FaultSuite SUITE = FaultSuite.brokers("broker-crash", BROKERS);

    @Test
    void killingABrokerMidLoadLosesNoJobAndLeavesNoLeaseBehind() throws Exception {
        Api api = SUITE.brokers().api;
        Set<Long> enqueued = new HashSet<>();
        for (int i = 0; i < JOBS / 500; i++) {
            enqueued.addAll(Load.enqueueBatch(api, SUITE.brokers().uri(i % BROKERS), QUEUE, "bc", 500, n -> Map.of("n", n)));
        }
        assertEquals(JOBS, enqueued.size());

        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger connectionErrors = new AtomicInteger();
        AtomicInteger conflictsAfterRetry = new AtomicInteger();
        Map<Long, AtomicInteger> completedBy200 = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicLong stuckMax = new AtomicLong();
        AtomicLong stuckSamples = new AtomicLong();

        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS + SIDECARS);
        Set<Long> orphans = ConcurrentHashMap.newKeySet();
        AtomicInteger[] holding = new AtomicInteger[SIDECARS];
        AtomicBoolean hostDown = new AtomicBoolean();
        Connection sampleConn = FaultDb.connect();
        long start = System.nanoTime();
        long killedAt;
        long end;
        int exit;
        try {
            sampler.scheduleWithFixedDelay(() -> {
                try {
                    stuckMax.accumulateAndGet(FaultDb.count(sampleConn, STUCK_SQL), Math::max);
                    stuckSamples.incrementAndGet();
                } catch (SQLException e) {
                    problems.add("sampler: " + e);
                }
            }, 0, 250, TimeUnit.MILLISECONDS);

            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                String workerId = "bc-w" + w;
                int home = w % BROKERS;
                workers.add(pool.submit(() -> {
                    work(api, workerId, home, stop, completed, completedBy200, connectionErrors,
                            conflictsAfterRetry, problems);
                    return null;
                }));
            }

            List<Future<?>> sidecars = new ArrayList<>();
            for (int s = 0; s < SIDECARS; s++) {
                String workerId = "bc-sidecar" + s;
                AtomicInteger held = holding[s] = new AtomicInteger();
                sidecars.add(pool.submit(() -> {
                    sidecar(api, workerId, stop, hostDown, held, orphans, completed, completedBy200, problems);
                    return null;
                }));
            }

            // Kill when a third is done and both sidecars are in the middle of their work.
            await("a third of the jobs done").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(2))
                    .until(() -> completed.get() >= JOBS / 3 && holding[0].get() > 0 && holding[1].get() > 0
                            || workers.stream().anyMatch(Future::isDone)
                            || sidecars.stream().anyMatch(Future::isDone));
            BrokerProcess victim = SUITE.brokers().get(0);
            int doneAtKill = completed.get();
            hostDown.set(true); // the sidecars go down with the host
            exit = victim.kill();
            killedAt = System.nanoTime();
            System.out.printf("BrokerCrashIT: killed %s after %d of %d jobs (exit %d)%n", victim, doneAtKill, JOBS,
                    exit);

            await("every job archived").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                    .until(() -> FaultDb.count("SELECT count(*) FROM readpast_job_archive") >= JOBS
                            || workers.stream().anyMatch(Future::isDone));
            end = System.nanoTime();
            // One more look for a lease left behind, after the last job moved.
            stuckMax.accumulateAndGet(FaultDb.count(sampleConn, STUCK_SQL), Math::max);
            stop.set(true);
            Load.join(workers, 60);
            Load.join(sidecars, 60);
        } finally {
            stop.set(true);
            Load.stop(pool);
            Load.stop(sampler);
            sampleConn.close();
        }

        long reclaimed = FaultDb.count("SELECT count(*) FROM readpast_job_archive WHERE attempt > 1");
        String orphanList = orphans.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElse("0");
        long orphansRetried = FaultDb.count("SELECT count(*) FROM readpast_job_archive WHERE attempt >= 2 "
                + "AND worker_id LIKE 'bc-w%' AND id IN (" + orphanList + ")");
        System.out.printf("BrokerCrashIT: jobs=%d seconds=%.1f (%.1f after the kill) jobs/s=%.0f connectionErrors=%d "
                        + "409sAfterRetriedComplete=%d abandonedBySidecars=%d jobsReturnedByLeaseExpiry=%d stuckLeaseSamples=%d "
                        + "maxStuckLeases=%d%n",
                JOBS, (end - start) / 1e9, (end - killedAt) / 1e9, JOBS / ((end - start) / 1e9),
                connectionErrors.get(), conflictsAfterRetry.get(), orphans.size(), reclaimed, stuckSamples.get(),
                stuckMax.get());

        assertEquals(137, exit, "the broker died of SIGKILL");
        assertTrue(SUITE.brokers().get(1).alive() && SUITE.brokers().get(2).alive(), "the other brokers keep running");
        assertTrue(problems.isEmpty(), () -> problems.size() + " problems, first ones: "
                + problems.stream().limit(20).toList());
        assertTrue(connectionErrors.get() > 0, "workers saw the broker go (and moved to another one)");
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job"), "hot table empty after the drain");
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job_dead"), "no dead letters");
        Set<Long> archived = new HashSet<>();
        for (Object[] row : FaultDb.rows("SELECT id FROM readpast_job_archive WHERE status = 3")) {
            archived.add(((Number) row[0]).longValue());
        }
        assertEquals(enqueued, archived, "every enqueued job SUCCEEDED, and nothing else");
        List<Long> twice = completedBy200.entrySet().stream().filter(e -> e.getValue().get() > 1)
                .map(Map.Entry::getKey).toList();
        assertEquals(List.of(), twice, "jobs whose completion was acknowledged (200) twice");
        assertTrue(orphans.size() > 0, "the sidecars died holding jobs");
        assertEquals(orphans.size(), orphansRetried,
                "every job abandoned with the dead broker came back and was finished by another worker");
        assertTrue(stuckSamples.get() > 10, "stuck-lease sampler ran " + stuckSamples.get() + " times");
        assertEquals(0, stuckMax.get(), "jobs LEASED/PROCESSING more than 5 s past their lease expiry");
    }

    /** One worker: claim on its broker, complete; on a connection error, the next broker. */
    private static void work(Api api, String workerId, int home, AtomicBoolean stop, AtomicInteger completed,
                             Map<Long, AtomicInteger> completedBy200, AtomicInteger connectionErrors,
                             AtomicInteger conflictsAfterRetry, ConcurrentLinkedQueue<String> problems) {
        int[] at = {home};
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(6);
        for (int round = 0; round < 1_000_000 && !stop.get() && System.nanoTime() < deadline; round++) {
            Failover claim = post(api, at, "claim", Map.of("workerId", workerId, "queues", List.of(QUEUE),
                    "limit", 10, "leaseSeconds", LEASE_SECONDS), connectionErrors);
            if (claim.reply == null) {
                problems.add(workerId + " claim: no broker answered");
                return;
            }
            if (claim.reply.status() != 200) {
                problems.add(workerId + " claim answered " + claim.reply);
                continue;
            }
            JsonNode jobs = claim.reply.body().get("jobs");
            if (jobs.isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // poll interval of an idle worker
                continue;
            }
            List<Map<String, Object>> items = new ArrayList<>();
            for (JsonNode j : jobs) {
                items.add(Map.of("id", j.get("id").asText(), "leaseId", j.get("leaseId").asText()));
            }
            Failover done = post(api, at, "jobs/complete", Map.of("items", items), connectionErrors);
            if (done.reply == null || done.reply.status() != 200) {
                problems.add(workerId + " complete answered " + done.reply);
                continue;
            }
            JsonNode results = done.reply.body().get("results");
            for (int i = 0; i < items.size(); i++) {
                int status = results.get(i).get("status").asInt();
                long id = Long.parseLong((String) items.get(i).get("id"));
                if (status == 200) {
                    completed.incrementAndGet();
                    completedBy200.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                } else if (status == 409 && done.retried) {
                    // The first attempt may have completed it before the broker died: checked at the end
                    // (every job archived exactly once).
                    conflictsAfterRetry.incrementAndGet();
                } else {
                    problems.add(workerId + " complete item " + items.get(i) + " answered " + results.get(i));
                }
            }
        }
    }

    /**
     * A worker on the same host as broker 0, talking only to it; it "works" 100 ms per batch. When
     * the host goes down (hostDown, set just before the broker is killed) it dies too: the jobs it
     * holds are abandoned with their leases.
     */
    private static void sidecar(Api api, String workerId, AtomicBoolean stop, AtomicBoolean hostDown,
                                AtomicInteger holding,
                                Set<Long> orphans, AtomicInteger completed, Map<Long, AtomicInteger> completedBy200,
                                ConcurrentLinkedQueue<String> problems) {
        URI base = SUITE.brokers().uri(0);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(6);
        for (int round = 0; round < 100_000 && !stop.get() && !hostDown.get() && System.nanoTime() < deadline;
             round++) {
            Api.Reply claim;
            try {
                claim = api.post(base, "claim", Map.of("workerId", workerId, "queues", List.of(QUEUE),
                        "limit", 10, "leaseSeconds", LEASE_SECONDS));
            } catch (IOException e) {
                return; // the host is gone; whatever that claim leased is the sweeper's
            }
            if (claim.status() != 200) {
                problems.add(workerId + " claim answered " + claim);
                continue;
            }
            JsonNode jobs = claim.body().get("jobs");
            if (jobs.isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // poll interval of an idle worker
                continue;
            }
            List<Map<String, Object>> items = new ArrayList<>();
            for (JsonNode j : jobs) {
                items.add(Map.of("id", j.get("id").asText(), "leaseId", j.get("leaseId").asText()));
            }
            holding.set(items.size());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // the work itself
            holding.set(0);
            if (hostDown.get()) {
                // Its host went down while it worked: it dies holding these leases.
                items.forEach(i -> orphans.add(Long.parseLong((String) i.get("id"))));
                return;
            }
            Api.Reply done;
            try {
                done = api.post(base, "jobs/complete", Map.of("items", items));
            } catch (IOException e) {
                return; // may or may not have completed them; the end check covers both
            }
            if (done.status() != 200) {
                problems.add(workerId + " complete answered " + done);
                continue;
            }
            JsonNode results = done.body().get("results");
            for (int i = 0; i < items.size(); i++) {
                if (results.get(i).get("status").asInt() == 200) {
                    completed.incrementAndGet();
                    completedBy200.computeIfAbsent(Long.parseLong((String) items.get(i).get("id")),
                            k -> new AtomicInteger()).incrementAndGet();
                } else {
                    problems.add(workerId + " complete item " + items.get(i) + " answered " + results.get(i));
                }
            }
        }
    }

    private record Failover(Api.Reply reply, boolean retried) {
    }

    /** POSTs to the current broker; on a connection failure moves on to the next one and sends again. */
    private static Failover post(Api api, int[] at, String path, Object body, AtomicInteger connectionErrors) {
        boolean retried = false;
        for (int attempt = 0; attempt < 2 * BROKERS; attempt++) {
            URI base = SUITE.brokers().uri(at[0]);
            try {
                return new Failover(api.post(base, path, body), retried);
            } catch (IOException e) {
                connectionErrors.incrementAndGet();
                retried = true;
                at[0] = (at[0] + 1) % BROKERS;
            }
        }
        return new Failover(null, true);
    }
}
