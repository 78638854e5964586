package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * PostgreSQL stopped and started, then restarted, under two brokers with light load (DESIGN.md
 * section 4, invariant 4; docs/api.md: 503 with Retry-After when the database is unreachable). The
 * brokers stay up, readiness goes DOWN and comes back UP, every failed request is a 503
 * problem+json with Retry-After (never a 500), and every job that got a 201 completes.
 */
class DatabaseRestartIT {

    private static final int BROKERS = 2;
    private static final int WORKERS = 3;
    private static final int LEASE_SECONDS = 20;
    private static final String QUEUE = "dbr";

    private static Brokers brokers;

    /** One readiness answer: when (System.nanoTime) and the status (-1: no answer). */
    private record Sample(long at, int status) {
    }

    /** Every non-2xx answer the load saw, and what was wrong with any of them. */
    private static final class Seen {
        final Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
        final AtomicInteger unavailable = new AtomicInteger();
        final java.util.concurrent.atomic.AtomicLong slowest503 = new java.util.concurrent.atomic.AtomicLong();
        final ConcurrentLinkedQueue<String> bad = new ConcurrentLinkedQueue<>();

        /** Records an answer that took {@code nanos} from request to response. */
        void note(String what, Api.Reply r, long nanos) {
            if (r.status() < 300) {
                return;
            }
            statuses.computeIfAbsent(what + " " + r.status(), k -> new AtomicInteger()).incrementAndGet();
            if (r.status() == 503) {
                unavailable.incrementAndGet();
                slowest503.accumulateAndGet(nanos, Math::max);
                if (r.retryAfter() == null || !r.problemJson() || r.body() == null
                        || r.body().path("status").asInt() != 503) {
                    bad.add(what + ": 503 without Retry-After or problem+json: " + r);
                }
            } else {
                bad.add(what + ": " + r);
            }
        }

        void noAnswer(String what, IOException e) {
            statuses.computeIfAbsent(what + " no answer", k -> new AtomicInteger()).incrementAndGet();
            bad.add(what + ": no answer: " + e);
        }
    }

    @BeforeAll
    static void startBrokers() {
        assumeTrue(FaultDb.isPostgres(), "the fault tests run on PostgreSQL");
        assumeTrue(Postgres.local() && Postgres.version() != null,
                "needs the fault database on a local pg_ctlcluster-managed PostgreSQL");
        Postgres.ensureRunning();
        // the outage answered 503 at once, as with no failover wait: HaFailoverIT holds the wait
        brokers = Brokers.start("db-restart", BROKERS, Map.of("READPAST_DB_FAILOVER_WAIT", "PT0S"));
    }

    @AfterAll
    static void stopBrokers() {
        try {
            if (Postgres.version() != null) {
                Postgres.ensureRunning();
            }
        } finally {
            if (brokers != null) {
                brokers.close();
            }
        }
    }

    @BeforeEach
    void clean() {
        FaultDb.clean();
    }

    @Test
    void brokersAnswer503DuringAnOutageAndRecoverWithoutLosingAJob() throws Exception {
        Api api = brokers.api;
        Set<Long> enqueued = ConcurrentHashMap.newKeySet();
        Set<Long> completed = ConcurrentHashMap.newKeySet();
        Set<String> conflictsAfterRetry = ConcurrentHashMap.newKeySet();
        Seen seen = new Seen();
        AtomicBoolean stopProducer = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        List<List<Sample>> readiness = new ArrayList<>();
        for (int b = 0; b < BROKERS; b++) {
            readiness.add(new CopyOnWriteArrayList<>());
        }

        ExecutorService pool = Executors.newFixedThreadPool(BROKERS + 1 + WORKERS);
        long stopAt;
        long stopped;
        long startAt;
        long started;
        long restartAt;
        long restarted;
        int unavailableInStop;
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int b = 0; b < BROKERS; b++) {
                BrokerProcess broker = brokers.get(b);
                List<Sample> samples = readiness.get(b);
                tasks.add(pool.submit(() -> {
                    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(6);
                    for (int i = 0; i < 100_000 && !stop.get() && System.nanoTime() < deadline; i++) {
                        samples.add(new Sample(System.nanoTime(), broker.readyStatus(api)));
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // sampling rate
                    }
                    return null;
                }));
            }
            Future<?> producer = pool.submit(() -> {
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(6);
                for (int i = 0; i < 100_000 && !stopProducer.get() && System.nanoTime() < deadline; i++) {
                    URI base = brokers.uri(i % BROKERS);
                    try {
                        long t = System.nanoTime();
                        Api.Reply r = api.post(base, "jobs", Map.of("queue", QUEUE, "type", "dbr",
                                "payload", Map.of("n", i)));
                        if (r.status() == 201) {
                            enqueued.add(Long.parseLong(r.body().get("id").asText()));
                        } else {
                            seen.note("POST /jobs", r, System.nanoTime() - t);
                        }
                    } catch (IOException e) {
                        seen.noAnswer("POST /jobs", e);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(25)); // ~40 jobs/s at most
                }
                return null;
            });
            tasks.add(producer);
            for (int w = 0; w < WORKERS; w++) {
                String workerId = "dbr-w" + w;
                URI base = brokers.uri(w % BROKERS);
                tasks.add(pool.submit(() -> {
                    work(api, base, workerId, stop, completed, conflictsAfterRetry, seen);
                    return null;
                }));
            }

            await("warm-up").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> completed.size() >= 30 || tasks.stream().anyMatch(Future::isDone));
            assertTrue(tasks.stream().noneMatch(Future::isDone), "a load thread ended early");

            // The outage: stop PostgreSQL, watch both brokers go DOWN and the load get 503s, start it.
            stopAt = System.nanoTime();
            boolean pgStopped = false;
            try {
                Postgres.stop();
                pgStopped = true;
                stopped = System.nanoTime();
                await("readiness DOWN on every broker").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> readiness.stream().allMatch(s -> first(s, stopAt, 503) != null));
                int before = seen.unavailable.get();
                await("the load sees 503s").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                        .until(() -> seen.unavailable.get() >= before + 5);
                startAt = System.nanoTime();
                Postgres.start();
                started = System.nanoTime();
            } finally {
                if (pgStopped) {
                    Postgres.ensureRunning();
                }
            }
            await("readiness UP on every broker").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> readiness.stream().allMatch(s -> first(s, startAt, 200) != null));
            int atUp = completed.size();
            await("work goes on").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> completed.size() >= atUp + 30 || tasks.stream().anyMatch(Future::isDone));
            unavailableInStop = seen.unavailable.get();

            // A plain restart too: every pooled connection dies at once, the database is back quickly.
            restartAt = System.nanoTime();
            try {
                Postgres.restart();
            } finally {
                Postgres.ensureRunning();
            }
            restarted = System.nanoTime();
            await("readiness UP after the restart").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> readiness.stream().allMatch(s -> first(s, restarted, 200) != null));
            int afterRestart = completed.size();
            await("work goes on after the restart").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> completed.size() >= afterRestart + 30 || tasks.stream().anyMatch(Future::isDone));

            stopProducer.set(true);
            Load.join(List.of(producer), 60);
            await("every enqueued job completed").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                    .until(() -> FaultDb.count("SELECT count(*) FROM readpast_job") == 0
                            && FaultDb.count("SELECT count(*) FROM readpast_job_archive") >= enqueued.size()
                            || tasks.stream().anyMatch(f -> f != producer && f.isDone()));
            stop.set(true);
            Load.join(tasks, 60);
        } finally {
            stop.set(true);
            stopProducer.set(true);
            Load.stop(pool);
        }

        StringBuilder timing = new StringBuilder();
        for (int b = 0; b < BROKERS; b++) {
            List<Sample> s = readiness.get(b);
            Sample down = first(s, stopAt, 503);
            Sample up = down == null ? null : first(s, Math.max(down.at, startAt), 200);
            timing.append(String.format(" broker%d: DOWN %.2f s after the stop began, UP %.2f s after the start began;",
                    b, down == null ? -1 : (down.at - stopAt) / 1e9, up == null ? -1 : (up.at - startAt) / 1e9));
            assertTrue(down != null && up != null, "broker " + b + " readiness went DOWN and back UP: " + s);
            List<Integer> odd = s.stream().map(Sample::status).filter(st -> st != 200 && st != 503).toList();
            assertEquals(List.of(), odd, "broker " + b + " readiness answers other than 200/503");
        }
        for (int b = 0; b < BROKERS; b++) {
            List<Sample> s = readiness.get(b);
            Sample down = first(s, restartAt, 503);
            boolean seenDown = down != null && down.at <= restarted;
            Sample up = first(s, seenDown ? down.at : restartAt, 200);
            timing.append(String.format(" restart: broker%d DOWN %s, UP %.2f s after the restart began;", b,
                    seenDown ? String.format("%.2f s", (down.at - restartAt) / 1e9) : "not seen",
                    (up.at - restartAt) / 1e9));
        }
        System.out.printf("DatabaseRestartIT: pg stop took %.2f s, outage %.2f s, pg start took %.2f s, "
                        + "pg restart took %.2f s;%s enqueued=%d completed=%d 503s=%d (%d in stop/start, %d in restart; "
                        + "slowest %.2f s) nonOk=%s 409sAfterRetriedComplete=%s%n",
                (stopped - stopAt) / 1e9, (started - stopAt) / 1e9, (started - startAt) / 1e9,
                (restarted - restartAt) / 1e9, timing, enqueued.size(), completed.size(), seen.unavailable.get(),
                unavailableInStop, seen.unavailable.get() - unavailableInStop, seen.slowest503.get() / 1e9,
                toInts(seen.statuses), conflictsAfterRetry);

        for (int b = 0; b < BROKERS; b++) {
            BrokerProcess p = brokers.get(b);
            assertTrue(p.alive(), p + " died");
        }
        assertEquals(List.of(), seen.bad.stream().limit(20).toList(),
                "answers other than 503 + Retry-After + problem+json during the outage (" + seen.bad.size() + ")");
        assertTrue(seen.unavailable.get() > 0, "the load saw the outage");
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job"), "hot table empty after the drain");
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job_dead"), "no dead letters");
        Set<Long> archived = new HashSet<>();
        for (Object[] row : FaultDb.rows("SELECT id FROM readpast_job_archive WHERE status = 3")) {
            archived.add(((Number) row[0]).longValue());
        }
        Set<Long> missing = new HashSet<>(enqueued);
        missing.removeAll(archived);
        assertEquals(Set.of(), missing, "jobs that got a 201 but never SUCCEEDED");
        // Informative: a refused request may still have committed (the answer to COMMIT was lost).
        for (String c : conflictsAfterRetry) {
            String[] idWorker = c.split("/");
            System.out.printf("DatabaseRestartIT: job %s answered 503 then 409 to %s; archived as %s%n", idWorker[0],
                    idWorker[1], FaultDb.rows("SELECT status, worker_id, attempt FROM readpast_job_archive WHERE id = ?",
                            Long.parseLong(idWorker[0])).stream().map(java.util.Arrays::toString).toList());
        }
        System.out.printf("DatabaseRestartIT: %d job(s) exist that the producer never got a 201 for%n",
                archived.size() - enqueued.size());
    }

    /** One worker: claim, then batch-complete; a refused completion is retried with the same leases. */
    private static void work(Api api, URI base, String workerId, AtomicBoolean stop, Set<Long> completed,
                             Set<String> conflictsAfterRetry, Seen seen) {
        List<Map<String, Object>> held = new ArrayList<>();
        boolean retried = false;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(6);
        for (int round = 0; round < 100_000 && !stop.get() && System.nanoTime() < deadline; round++) {
            if (!held.isEmpty()) {
                Api.Reply r;
                long t = System.nanoTime();
                try {
                    r = api.post(base, "jobs/complete", Map.of("items", held));
                } catch (IOException e) {
                    seen.noAnswer("POST /jobs/complete", e);
                    retried = true;
                    continue;
                }
                if (r.status() != 200) {
                    seen.note("POST /jobs/complete", r, System.nanoTime() - t);
                    retried = true;
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250)); // back off before retrying
                    continue;
                }
                JsonNode results = r.body().get("results");
                for (int i = 0; i < held.size(); i++) {
                    int status = results.get(i).get("status").asInt();
                    if (status == 200) {
                        completed.add(Long.parseLong((String) held.get(i).get("id")));
                    } else if (status == 409 && retried) {
                        // An earlier attempt may have committed before its answer was lost (or the lease ran
                        // out during the outage): the end check requires the job SUCCEEDED either way.
                        conflictsAfterRetry.add(held.get(i).get("id") + "/" + workerId);
                    } else {
                        seen.bad.add(workerId + " complete item " + held.get(i) + " answered " + results.get(i));
                    }
                }
                held.clear();
                retried = false;
            }
            Api.Reply claim;
            long t = System.nanoTime();
            try {
                claim = api.post(base, "claim", Map.of("workerId", workerId, "queues", List.of(QUEUE),
                        "limit", 5, "leaseSeconds", LEASE_SECONDS));
            } catch (IOException e) {
                seen.noAnswer("POST /claim", e);
                continue;
            }
            if (claim.status() != 200) {
                seen.note("POST /claim", claim, System.nanoTime() - t);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250)); // back off
                continue;
            }
            for (JsonNode j : claim.body().get("jobs")) {
                held.add(Map.of("id", j.get("id").asText(), "leaseId", j.get("leaseId").asText()));
            }
            if (held.isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // poll interval of an idle worker
            }
        }
    }

    /** The first sample at or after {@code after} with the given status, or null. */
    private static Sample first(List<Sample> samples, long after, int status) {
        for (Sample s : samples) {
            if (s.at >= after && s.status == status) {
                return s;
            }
        }
        return null;
    }

    private static Map<String, Integer> toInts(Map<String, AtomicInteger> m) {
        Map<String, Integer> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }
}
