package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker is killed with SIGKILL while it merges enqueues, heartbeats and completions of many
 * clients into shared statements (issue 40, docs/how-it-works.md "Merging"). Nothing it answered
 * is lost, and nothing unanswered lands twice:
 * <ul>
 *   <li>every enqueue answered 201 (or 200) is in the database with the id it was answered with;</li>
 *   <li>an enqueue left unanswered by the kill, sent again to the other broker with the same
 *       idempotency key, makes exactly one job (the queue of these jobs has no worker, so the key
 *       is held by a live job, as docs/api.md states the rule);</li>
 *   <li>every completion answered 200 is archived SUCCEEDED, none is answered 200 twice, and every
 *       job of the worked queue ends SUCCEEDED exactly once (leases of the dead broker expire).</li>
 * </ul>
 */
class MergedCrashIT {

    private static final int BROKERS = 2;
    private static final int WORK = 4000;
    private static final int PRODUCERS = 12;
    private static final int WORKERS = 8;
    private static final int LEASE_SECONDS = 5;
    private static final String IN = "mc-in";
    private static final String WORKED = "mc-work";

    @RegisterExtension
    static final FaultSuite SUITE = FaultSuite.brokers("merged-crash", BROKERS);

    @Test
    void killingABrokerWithMergedStatementsInFlightLosesNothingItAnswered() throws Exception {
        Api api = SUITE.brokers().api;
        URI victim = SUITE.brokers().uri(0);
        URI survivor = SUITE.brokers().uri(1);
        Set<Long> work = new HashSet<>();
        for (int i = 0; i < WORK / 500; i++) {
            work.addAll(Load.enqueueBatch(api, survivor, WORKED, "w", 500, n -> Map.of("n", n)));
        }

        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean killed = new AtomicBoolean();
        Map<String, Long> answered = new ConcurrentHashMap<>(); // key -> id, answered by the victim
        Set<String> unanswered = ConcurrentHashMap.newKeySet();
        Map<String, Long> retried = new ConcurrentHashMap<>(); // key -> id, answered by the survivor
        Map<Long, AtomicInteger> completedBy200 = new ConcurrentHashMap<>();
        AtomicInteger heartbeats200 = new AtomicInteger();
        AtomicInteger completions = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS + WORKERS);
        long[][] mergedAtKill;
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int producer = p;
                tasks.add(pool.submit(() -> {
                    produce(api, producer, victim, survivor, killed, answered, unanswered, retried, problems);
                    return null;
                }));
            }
            for (int w = 0; w < WORKERS; w++) {
                String workerId = "mc-w" + w;
                tasks.add(pool.submit(() -> {
                    work(api, workerId, victim, survivor, stop, completedBy200, heartbeats200, completions, problems);
                    return null;
                }));
            }

            // Kill once the victim has merged enqueues and acks of several clients into shared
            // statements, with the load still running.
            await("the victim merges enqueues and acks").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        long[][] m = merged(api, victim);
                        return m[0][1] - m[0][0] >= 50 && m[1][1] - m[1][0] >= 50 && completions.get() >= 500
                                || tasks.stream().anyMatch(Future::isDone);
                    });
            mergedAtKill = merged(api, victim);
            int exit = SUITE.brokers().get(0).kill();
            killed.set(true);
            System.out.printf("MergedCrashIT: killed the victim (exit %d) after %d enqueues answered, %d completions; "
                            + "merged enqueues %d requests in %d statements, acks %d requests in %d statements%n",
                    exit, answered.size(), completions.get(), mergedAtKill[0][1], mergedAtKill[0][0],
                    mergedAtKill[1][1], mergedAtKill[1][0]);
            assertEquals(137, exit, "the broker died of SIGKILL");

            await("every job of the worked queue archived").atMost(Duration.ofSeconds(180))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> FaultDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = ?", WORKED) >= WORK
                            || tasks.stream().filter(Future::isDone).count() > PRODUCERS);
            stop.set(true);
            Load.join(tasks, 60);
        } finally {
            stop.set(true);
            Load.stop(pool);
        }

        System.out.printf("MergedCrashIT: enqueues answered by the victim %d, unanswered %d (all sent again), "
                        + "completions answered 200 %d, heartbeats answered 200 %d%n",
                answered.size(), unanswered.size(), completedBy200.size(), heartbeats200.get());
        assertTrue(problems.isEmpty(), () -> problems.size() + " problems, first ones: "
                + problems.stream().limit(20).toList());
        assertTrue(mergedAtKill[0][1] > mergedAtKill[0][0] && mergedAtKill[1][1] > mergedAtKill[1][0],
                "statements were shared when the broker died");
        assertTrue(heartbeats200.get() > 0, "heartbeats were answered");

        // enqueues: each key one job; each answered id is that job
        Map<String, List<Long>> byKey = new HashMap<>();
        for (Object[] row : FaultDb.rows("SELECT idempotency_key, id FROM readpast_job WHERE queue = ? "
                + "UNION ALL SELECT idempotency_key, id FROM readpast_job_archive WHERE queue = ? "
                + "UNION ALL SELECT idempotency_key, id FROM readpast_job_dead WHERE queue = ?", IN, IN, IN)) {
            byKey.computeIfAbsent((String) row[0], k -> new ArrayList<>()).add(((Number) row[1]).longValue());
        }
        Set<String> sent = new HashSet<>(answered.keySet());
        sent.addAll(unanswered);
        assertEquals(sent, byKey.keySet(), "the jobs of the producers' queue are those of the keys sent");
        List<String> twice = byKey.entrySet().stream().filter(e -> e.getValue().size() != 1).map(Map.Entry::getKey).toList();
        assertEquals(List.of(), twice, "keys that made more than one job");
        answered.forEach((key, id) -> assertEquals(List.of(id), byKey.get(key),
                "the job answered for " + key + " is in the database as answered"));
        retried.forEach((key, id) -> assertEquals(List.of(id), byKey.get(key),
                "the job answered again for " + key + " is the one job of its key"));

        // completions: every 200 archived SUCCEEDED once; every job of the queue SUCCEEDED once
        Set<Long> succeeded = new HashSet<>();
        for (Object[] row : FaultDb.rows("SELECT id FROM readpast_job_archive WHERE queue = ? AND status = 3", WORKED)) {
            assertTrue(succeeded.add(((Number) row[0]).longValue()), "archived once: " + row[0]);
        }
        assertEquals(work, succeeded, "every job of the worked queue SUCCEEDED, and nothing else");
        assertTrue(succeeded.containsAll(completedBy200.keySet()), "every completion answered 200 is archived");
        List<Long> ackedTwice = completedBy200.entrySet().stream().filter(e -> e.getValue().get() > 1)
                .map(Map.Entry::getKey).toList();
        assertEquals(List.of(), ackedTwice, "jobs whose completion was answered 200 twice");
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job_dead"), "no dead letters");
    }

    /** Single enqueues to the victim with idempotency keys; on its death, the unanswered one again to the survivor. */
    private static void produce(Api api, int producer, URI victim, URI survivor, AtomicBoolean killed,
                                Map<String, Long> answered, Set<String> unanswered, Map<String, Long> retried,
                                ConcurrentLinkedQueue<String> problems) {
        for (int i = 0; i < 1_000_000 && !killed.get(); i++) {
            String key = "mc-p" + producer + "-" + i;
            Map<String, Object> body = Map.of("queue", IN, "type", "in", "payload", Map.of("p", producer, "i", i),
                    "idempotencyKey", key);
            try {
                Api.Reply r = api.post(victim, "jobs", body);
                if (r.status() == 201) {
                    answered.put(key, Long.parseLong(r.body().get("id").asText()));
                } else {
                    problems.add(key + " answered " + r);
                }
            } catch (IOException gone) {
                unanswered.add(key);
                try {
                    Api.Reply r = api.post(survivor, "jobs", body);
                    if (r.status() == 201 || r.status() == 200) {
                        retried.put(key, Long.parseLong(r.body().get("id").asText()));
                    } else {
                        problems.add(key + " sent again answered " + r);
                    }
                } catch (IOException e) {
                    problems.add(key + " sent again: " + e);
                }
                return;
            }
        }
    }

    /** Claim, heartbeat the batch, complete the batch: on the victim, then (once it is gone) on the survivor. */
    private static void work(Api api, String workerId, URI victim, URI survivor, AtomicBoolean stop,
                             Map<Long, AtomicInteger> completedBy200, AtomicInteger heartbeats200,
                             AtomicInteger completions, ConcurrentLinkedQueue<String> problems) {
        URI at = victim;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (!stop.get() && System.nanoTime() < deadline) {
            try {
                Api.Reply claim = api.post(at, "claim", Map.of("workerId", workerId, "queues", List.of(WORKED),
                        "limit", 5, "leaseSeconds", LEASE_SECONDS, "waitSeconds", 1));
                if (claim.status() != 200) {
                    problems.add(workerId + " claim answered " + claim);
                    continue;
                }
                List<Map<String, Object>> items = new ArrayList<>();
                for (JsonNode j : claim.body().get("jobs")) {
                    items.add(Map.of("id", j.get("id").asText(), "leaseId", j.get("leaseId").asText()));
                }
                if (items.isEmpty()) {
                    continue;
                }
                Api.Reply beat = api.post(at, "jobs/heartbeat", Map.of("items", items));
                if (beat.status() != 200) {
                    problems.add(workerId + " heartbeat answered " + beat);
                    continue;
                }
                for (JsonNode r : beat.body().get("results")) {
                    if (r.get("status").asInt() == 200) {
                        heartbeats200.incrementAndGet();
                    } else {
                        problems.add(workerId + " heartbeat item answered " + r);
                    }
                }
                Api.Reply done = api.post(at, "jobs/complete", Map.of("items", items));
                if (done.status() != 200) {
                    problems.add(workerId + " complete answered " + done);
                    continue;
                }
                JsonNode results = done.body().get("results");
                for (int i = 0; i < items.size(); i++) {
                    long id = Long.parseLong((String) items.get(i).get("id"));
                    if (results.get(i).get("status").asInt() == 200) {
                        completions.incrementAndGet();
                        completedBy200.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                    } else {
                        problems.add(workerId + " complete item " + items.get(i) + " answered " + results.get(i));
                    }
                }
            } catch (IOException gone) {
                if (at == survivor) {
                    problems.add(workerId + " lost the survivor: " + gone);
                    return;
                }
                at = survivor; // what it held on the victim comes back when its lease expires
            }
        }
    }

    /** {{statements, requests} of enqueues, {statements, requests} of acks} of a broker. */
    private static long[][] merged(Api api, URI broker) throws IOException {
        return new long[][] {api.merged(broker, "enqueues"), api.merged(broker, "acks")};
    }
}
