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
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three broker processes on one database; two producers and sixteen HTTP workers spread over
 * them. Proves (DESIGN.md section 4, invariants 1 and 5): every job is claimed exactly once and
 * completed exactly once, no two workers ever hold one job, and a queue's maxWorkers holds across
 * instances.
 */
class MultiInstanceIT {

    private static final int BROKERS = 3;
    private static final int TARGET_JOBS = 20_000;
    private static final int PRODUCERS = 2;
    private static final int WORKERS = 16;
    private static final int CAP = 5;
    private static final String CAPPED = "mi-capped";
    private static final String FREE = "mi-free";
    private static final int LEASE_SECONDS = 30;
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(4);


    /** One claim of one job, as the worker saw it: [claim sent, completion answered]. */
    private static final class Claim {
        final String worker;
        final String leaseId;
        final long from;
        volatile long to;

        Claim(String worker, String leaseId, long from) {
            this.worker = worker;
            this.leaseId = leaseId;
            this.from = from;
        }
    }

    @RegisterExtension
    static final FaultSuite SUITE = FaultSuite.brokers("multi", BROKERS);

    @Test
    void everyJobIsClaimedOnceByOneWorkerAndTheCapHolds() throws Exception {
        Api api = SUITE.brokers().api;
        Api.Reply put = api.put(SUITE.brokers().uri(0), "queues/" + CAPPED, Map.of("maxWorkers", CAP));
        assertEquals(200, put.status(), put::toString);

        Set<Long> enqueued = ConcurrentHashMap.newKeySet();
        AtomicInteger enqueuedCount = new AtomicInteger();
        AtomicInteger enqueuedCapped = new AtomicInteger();
        AtomicBoolean producersDone = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        Map<Long, List<Claim>> claims = new ConcurrentHashMap<>();
        AtomicInteger completedOk = new AtomicInteger();
        AtomicInteger claimRequests = new AtomicInteger();
        AtomicInteger completeRequests = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicInteger cappedMax = new AtomicInteger(-1);
        AtomicLong samples = new AtomicLong();

        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        ExecutorService producerPool = Executors.newFixedThreadPool(PRODUCERS);
        ExecutorService workerPool = Executors.newFixedThreadPool(WORKERS);
        Connection sampleConn = FaultDb.connect();
        long start = System.nanoTime();
        long end;
        try {
            PreparedStatement active = sampleConn.prepareStatement(
                    "SELECT count(*) FROM readpast_job WHERE queue = ? AND status IN (1, 2)");
            active.setString(1, CAPPED);
            sampler.scheduleWithFixedDelay(() -> {
                try (ResultSet rs = active.executeQuery()) {
                    rs.next();
                    cappedMax.accumulateAndGet(rs.getInt(1), Math::max);
                    samples.incrementAndGet();
                } catch (SQLException e) {
                    problems.add("sampler: " + e);
                }
            }, 0, 2, TimeUnit.MILLISECONDS);

            List<Future<?>> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                URI base = SUITE.brokers().uri(p % BROKERS);
                producers.add(producerPool.submit(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    for (int round = 0; round < TARGET_JOBS && enqueuedCount.get() < TARGET_JOBS; round++) {
                        int n = 100 + rnd.nextInt(401);
                        String queue = round % 8 == 0 ? CAPPED : FREE; // an eighth of the batches: the cap
                                                                         // (5 at a time) sets the pace there
                        List<Long> ids = Load.enqueueBatch(api, base, queue, "mi", n, i -> Map.of("n", i));
                        enqueued.addAll(ids);
                        enqueuedCount.addAndGet(ids.size());
                        if (queue.equals(CAPPED)) {
                            enqueuedCapped.addAndGet(ids.size());
                        }
                    }
                    return null;
                }));
            }

            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                String workerId = "mi-w" + w;
                URI base = SUITE.brokers().uri(w % BROKERS);
                List<String> queues = switch (w % 8) {
                    case 0, 4 -> List.of(CAPPED);
                    case 1 -> List.of(CAPPED, FREE);
                    default -> List.of(FREE);
                };
                workers.add(workerPool.submit(() -> {
                    work(api, base, workerId, queues, stop, claims, completedOk, claimRequests, completeRequests,
                            problems);
                    return null;
                }));
            }

            Load.join(producers, 180);
            producersDone.set(true);
            int total = enqueuedCount.get();
            AtomicLong lastProgress = new AtomicLong(System.nanoTime());
            AtomicInteger lastCompleted = new AtomicInteger();
            await("all " + total + " jobs completed").atMost(DRAIN_TIMEOUT).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        int done = completedOk.get();
                        if (done != lastCompleted.getAndSet(done)) {
                            lastProgress.set(System.nanoTime());
                        }
                        boolean stalled = !problems.isEmpty()
                                && System.nanoTime() - lastProgress.get() > TimeUnit.SECONDS.toNanos(15);
                        return done >= total || stalled || workers.stream().anyMatch(Future::isDone);
                    });
            end = System.nanoTime();
            stop.set(true);
            Load.join(workers, 60);
        } finally {
            stop.set(true);
            Load.stop(producerPool);
            Load.stop(workerPool);
            Load.stop(sampler);
            sampleConn.close();
        }

        int total = enqueuedCount.get();
        double seconds = (end - start) / 1e9;
        System.out.printf("MultiInstanceIT: jobs=%d (capped %d) seconds=%.1f jobs/s=%.0f brokers=%d workers=%d "
                        + "claims=%d completeBatches=%d cappedMaxActive=%d samples=%d%n",
                total, enqueuedCapped.get(), seconds, total / seconds, BROKERS, WORKERS, claimRequests.get(),
                completeRequests.get(), cappedMax.get(), samples.get());

        assertTrue(problems.isEmpty(), () -> problems.size() + " problems, first ones: "
                + problems.stream().limit(20).toList());
        assertTrue(total >= TARGET_JOBS, "enqueued " + total);
        assertEquals(total, enqueued.size(), "every enqueue got a distinct id");

        // Exactly once: every job in the archive as SUCCEEDED, nothing left hot or dead.
        Map<Long, Object[]> archived = new HashMap<>();
        for (Object[] row : FaultDb.rows("SELECT id, status, worker_id, attempt FROM readpast_job_archive")) {
            archived.put(((Number) row[0]).longValue(), row);
        }
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job"), "hot table empty");
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job_dead"), "no dead letters");
        assertEquals(enqueued, archived.keySet(), "the archive holds exactly the enqueued jobs");
        List<String> wrong = new ArrayList<>();
        for (Object[] row : archived.values()) {
            long id = ((Number) row[0]).longValue();
            List<Claim> cs = claims.getOrDefault(id, List.of());
            if (((Number) row[1]).intValue() != 3 || ((Number) row[3]).intValue() != 1
                    || cs.size() != 1 || !cs.get(0).worker.equals(row[2])) {
                wrong.add(id + ": status " + row[1] + ", attempt " + row[3] + ", archived worker " + row[2]
                        + ", claimed by " + cs.stream().map(c -> c.worker).toList());
            }
        }

        // Nobody else: each job claimed once, intervals never overlapping, lease ids unique.
        List<String> twice = new ArrayList<>();
        int overlapping = 0;
        Set<String> leaseIds = new HashSet<>();
        int claimsTotal = 0;
        for (Map.Entry<Long, List<Claim>> e : claims.entrySet()) {
            List<Claim> cs = new ArrayList<>(e.getValue());
            claimsTotal += cs.size();
            cs.forEach(c -> leaseIds.add(c.leaseId));
            if (cs.size() > 1) {
                cs.sort(Comparator.comparingLong(c -> c.from));
                for (int i = 1; i < cs.size(); i++) {
                    long prevTo = cs.get(i - 1).to;
                    if (prevTo == 0 || cs.get(i).from < prevTo) {
                        overlapping++;
                    }
                }
                twice.add(e.getKey() + " by " + cs.stream().map(c -> c.worker + "/" + c.leaseId).toList());
            }
        }
        long unfinished = claims.values().stream().flatMap(List::stream).filter(c -> c.to == 0).count();
        System.out.printf("MultiInstanceIT: claimedTwice=%d overlapping=%d unfinishedClaims=%d%n",
                twice.size(), overlapping, unfinished);
        assertEquals(0, overlapping, "claims of one job whose [claim, complete] intervals overlap");
        assertEquals(List.of(), twice.stream().limit(20).toList(), "jobs claimed more than once (30 s leases)");
        assertEquals(claimsTotal, leaseIds.size(), "every claim got a fresh lease id");
        assertEquals(0, unfinished, "claims whose completion never answered 200");
        assertEquals(List.of(), wrong.stream().limit(20).toList(), "archived rows that disagree with the claims");
        assertEquals(total, completedOk.get(), "batch-complete items answered 200");

        // The cap: never more than CAP leased+processing jobs in the capped queue, across 3 brokers.
        assertTrue(samples.get() > 100, "sampler ran " + samples.get() + " times");
        assertTrue(cappedMax.get() > 0, "the sampler saw the capped queue busy");
        assertTrue(cappedMax.get() <= CAP, "capped queue had " + cappedMax.get() + " active jobs, cap " + CAP);
    }

    /** One worker: claim, record, batch-complete; until told to stop. */
    private static void work(Api api, URI base, String workerId, List<String> queues, AtomicBoolean stop,
                             Map<Long, List<Claim>> claims, AtomicInteger completedOk, AtomicInteger claimRequests,
                             AtomicInteger completeRequests, ConcurrentLinkedQueue<String> problems) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(8);
        for (int round = 0; round < 2_000_000 && !stop.get() && System.nanoTime() < deadline; round++) {
            int limit = 10 + rnd.nextInt(11);
            long from = System.nanoTime();
            Api.Reply r;
            try {
                claimRequests.incrementAndGet();
                r = api.post(base, "claim", Map.of("workerId", workerId, "queues", queues, "limit", limit,
                        "leaseSeconds", LEASE_SECONDS));
            } catch (IOException e) {
                problems.add(workerId + " claim: " + e);
                continue;
            }
            if (r.status() != 200) {
                problems.add(workerId + " claim answered " + r);
                continue;
            }
            JsonNode jobs = r.body().get("jobs");
            if (jobs.isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // poll interval of an idle worker
                continue;
            }
            List<Map<String, Object>> items = new ArrayList<>();
            List<Claim> mine = new ArrayList<>();
            for (JsonNode j : jobs) {
                long id = Long.parseLong(j.get("id").asText());
                String lease = j.get("leaseId").asText();
                Claim c = new Claim(workerId, lease, from);
                claims.computeIfAbsent(id, k -> Collections.synchronizedList(new ArrayList<>(1))).add(c);
                mine.add(c);
                items.add(Map.of("id", Long.toString(id), "leaseId", lease, "result", Map.of("by", workerId)));
            }
            Api.Reply done;
            try {
                completeRequests.incrementAndGet();
                done = api.post(base, "jobs/complete", Map.of("items", items));
            } catch (IOException e) {
                problems.add(workerId + " complete: " + e);
                continue;
            }
            long to = System.nanoTime();
            if (done.status() != 200) {
                problems.add(workerId + " complete answered " + done);
                continue;
            }
            JsonNode results = done.body().get("results");
            for (int i = 0; i < items.size(); i++) {
                JsonNode item = results.get(i);
                if (item != null && item.get("status").asInt() == 200) {
                    mine.get(i).to = to;
                    completedOk.incrementAndGet();
                } else {
                    problems.add(workerId + " complete item " + items.get(i) + " answered " + item);
                }
            }
        }
    }
}
