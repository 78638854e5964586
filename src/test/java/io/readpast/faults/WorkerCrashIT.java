package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker killed with SIGKILL while it holds leases (DESIGN.md section 4, invariants 3 and 4):
 * its jobs come back after the lease runs out and another worker finishes them; its old lease
 * ids are fenced off with 409.
 */
class WorkerCrashIT {

    private static final Path PYTHON_WORKER = BrokerProcess.BASEDIR.resolve("examples/python/worker.py");

    @RegisterExtension
    static final FaultSuite SUITE = FaultSuite.brokers("worker-crash", 1);
    private static URI base;
    private static Api api;

    @BeforeAll
    static void broker() {
        base = SUITE.brokers().uri(0);
        api = SUITE.brokers().api;
    }

    /** The example Python worker, SIGKILLed while processing 5 one-minute jobs with 3-second leases. */
    @Test
    void killedPythonWorkersJobsComeBackAndAnotherWorkerFinishesThem() throws Exception {
        assertTrue(Files.isRegularFile(PYTHON_WORKER), "missing " + PYTHON_WORKER);
        String queue = "wc-python";
        List<Long> all = Load.enqueueBatch(api, base, queue, "sleep", 20, i -> Map.of("seconds", 60));

        Path log = BrokerProcess.LOGS.resolve("worker-crash-python.log");
        ProcessBuilder pb = new ProcessBuilder("python3", "-u", PYTHON_WORKER.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        pb.environment().put("READPAST_URL", base.toString());
        pb.environment().put("READPAST_QUEUES", queue);
        pb.environment().put("READPAST_BATCH", "5");
        pb.environment().put("READPAST_LEASE_SECONDS", "3");
        pb.environment().put("READPAST_WORKER_ID", "py-victim");
        Process worker = pb.start();
        Map<Long, String> victimLeases = new HashMap<>();
        long killedAt;
        try {
            // It holds 5 jobs and keeps them alive: all PROCESSING (heartbeats every second).
            await("python worker holds 5 jobs").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        assertTrue(worker.isAlive(), () -> "python worker exited: " + read(log));
                        return FaultDb.count("SELECT count(*) FROM readpast_job WHERE worker_id = 'py-victim' "
                                + "AND status = 2") == 5;
                    });
            // Its leases outlive their first 3 seconds: the heartbeats extend them.
            long before = FaultDb.count("SELECT count(*) FROM readpast_job WHERE worker_id = 'py-victim' "
                    + "AND status = 2 AND lease_expires_at > now() + interval '1 second'");
            assertEquals(5, before, "leases being extended");
            for (Object[] row : FaultDb.rows("SELECT id, lease_id FROM readpast_job WHERE worker_id = 'py-victim'")) {
                victimLeases.put(((Number) row[0]).longValue(), row[1].toString());
            }
        } finally {
            worker.destroyForcibly(); // SIGKILL: no release, no goodbye
            assertTrue(worker.waitFor(10, TimeUnit.SECONDS), "python worker did not die");
            killedAt = System.nanoTime();
        }
        assertEquals(5, victimLeases.size());
        assertEquals(137, worker.exitValue(), "killed by SIGKILL");

        // The broker notices nothing until the leases run out; then the sweeper puts them back
        // (PENDING: stored as 0, or as 6 while their retry backs off).
        Set<Long> victims = victimLeases.keySet();
        String idList = victims.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElseThrow();
        await("the killed worker's jobs are PENDING again").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> FaultDb.count("SELECT count(*) FROM readpast_job WHERE status IN (0, 6) AND lease_id IS NULL "
                        + "AND worker_id IS NULL AND attempt = 1 AND last_error IS NOT NULL AND id IN (" + idList + ")")
                        == 5);
        double backAfter = (System.nanoTime() - killedAt) / 1e9;
        for (long id : victims) {
            JsonNode job = api.getOrFail(base, "jobs/" + id).body();
            assertEquals("PENDING", job.get("status").asText(), job::toString);
        }

        // Another worker (this test) claims and completes all 20, the victims among them.
        Set<Long> done = new HashSet<>();
        await("another worker completes every job").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    Api.Reply r = api.post(base, "claim", Map.of("workerId", "rescuer", "queues", List.of(queue),
                            "limit", 20, "leaseSeconds", 30));
                    assertEquals(200, r.status(), r::toString);
                    for (JsonNode j : r.body().get("jobs")) {
                        Api.Reply c = api.post(base, "jobs/" + j.get("id").asText() + "/complete",
                                Map.of("leaseId", j.get("leaseId").asText(), "result", Map.of("rescued", true)));
                        assertEquals(200, c.status(), c::toString);
                        done.add(Long.parseLong(j.get("id").asText()));
                    }
                    return done.containsAll(all);
                });
        assertEquals(new HashSet<>(all), done);

        // The dead worker's lease ids are worthless now.
        for (Map.Entry<Long, String> e : victimLeases.entrySet()) {
            Api.Reply r = api.post(base, "jobs/" + e.getKey() + "/complete", Map.of("leaseId", e.getValue()));
            assertEquals(409, r.status(), r::toString);
        }
        assertEquals(20, FaultDb.count("SELECT count(*) FROM readpast_job_archive WHERE status = 3 "
                + "AND worker_id = 'rescuer'"));
        assertEquals(5, FaultDb.count("SELECT count(*) FROM readpast_job_archive WHERE attempt = 2 AND id IN ("
                + idList + ")"), "the victims' second attempt succeeded");
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job"));
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job_dead"));
        String out = read(log);
        assertFalse(out.contains("completed "), () -> "the killed worker completed something:\n" + out);
        System.out.printf("WorkerCrashIT: python worker killed holding %d jobs; PENDING again after %.1f s; "
                + "all 20 completed by another worker%n", victims.size(), backAfter);
    }

    /** A lease held by this test and abandoned: re-claimed by another worker, the old lease id fenced off. */
    @Test
    void abandonedLeaseIsReclaimedAndTheStaleLeaseIdGets409Everywhere() throws Exception {
        String queue = "wc-victim";
        long id = Load.enqueueBatch(api, base, queue, "t", 1, i -> Map.of("n", i)).get(0);
        Api.Reply first = api.post(base, "claim", Map.of("workerId", "victim", "queues", List.of(queue),
                "limit", 1, "leaseSeconds", 2));
        assertEquals(200, first.status(), first::toString);
        assertEquals(1, first.body().get("jobs").size(), first::toString);
        String victimLease = first.body().get("jobs").get(0).get("leaseId").asText();
        long claimedAt = System.nanoTime();

        // No heartbeat: once the lease runs out (and the retry backoff passes) another worker gets the job.
        AtomicReference<JsonNode> second = new AtomicReference<>();
        await("the job is claimable again").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    Api.Reply r = api.post(base, "claim", Map.of("workerId", "rescuer", "queues", List.of(queue),
                            "limit", 1, "leaseSeconds", 30));
                    assertEquals(200, r.status(), r::toString);
                    if (r.body().get("jobs").isEmpty()) {
                        return false;
                    }
                    second.set(r.body().get("jobs").get(0));
                    return true;
                });
        double reclaimedAfter = (System.nanoTime() - claimedAt) / 1e9;
        assertTrue(reclaimedAfter >= 2.0, "re-claimed after " + reclaimedAfter + " s, before the 2 s lease ran out");
        JsonNode job = second.get();
        assertEquals(Long.toString(id), job.get("id").asText());
        assertEquals(2, job.get("attempt").asInt(), job::toString);
        String rescuerLease = job.get("leaseId").asText();
        assertNotEquals(victimLease, rescuerLease);

        // While the rescuer holds it, the victim's lease id changes nothing.
        assertStaleLeaseRefused(id, victimLease);
        JsonNode now = api.getOrFail(base, "jobs/" + id).body();
        assertEquals("LEASED", now.get("status").asText(), now::toString);
        assertEquals("rescuer", now.get("workerId").asText(), now::toString);
        assertEquals(1, FaultDb.count("SELECT count(*) FROM readpast_job WHERE id = ? AND lease_id = CAST(? AS uuid)",
                id, rescuerLease));

        Api.Reply ok = api.post(base, "jobs/" + id + "/complete", Map.of("leaseId", rescuerLease));
        assertEquals(200, ok.status(), ok::toString);
        assertEquals("SUCCEEDED", ok.body().get("status").asText(), ok::toString);

        // And after the job is finished, still 409, and the job stays SUCCEEDED with the rescuer's result.
        assertStaleLeaseRefused(id, victimLease);
        JsonNode fin = api.getOrFail(base, "jobs/" + id).body();
        assertEquals("SUCCEEDED", fin.get("status").asText(), fin::toString);
        assertEquals("rescuer", fin.get("workerId").asText(), fin::toString);
        assertEquals(1, FaultDb.count("SELECT count(*) FROM readpast_job_archive WHERE id = ?", id));
        assertEquals(0, FaultDb.count("SELECT count(*) FROM readpast_job"));
        System.out.printf("WorkerCrashIT: abandoned 2 s lease re-claimed after %.1f s; stale lease id refused "
                + "with 409 on heartbeat/complete/fail/release/batch complete%n", reclaimedAfter);
    }

    private static void assertStaleLeaseRefused(long id, String lease) throws IOException {
        Map<String, Map<String, Object>> calls = new java.util.LinkedHashMap<>();
        calls.put("heartbeat", Map.of("leaseId", lease, "leaseSeconds", 60));
        calls.put("complete", Map.of("leaseId", lease, "result", Map.of("stale", true)));
        calls.put("fail", Map.of("leaseId", lease, "error", "stale", "retryable", false));
        calls.put("release", Map.of("leaseId", lease));
        for (Map.Entry<String, Map<String, Object>> c : calls.entrySet()) {
            Api.Reply r = api.post(base, "jobs/" + id + "/" + c.getKey(), c.getValue());
            assertEquals(409, r.status(), () -> c.getKey() + " with a stale lease: " + r);
            assertTrue(r.problemJson(), () -> c.getKey() + ": " + r);
        }
        Api.Reply batch = api.post(base, "jobs/complete",
                Map.of("items", List.of(Map.of("id", Long.toString(id), "leaseId", lease))));
        assertEquals(200, batch.status(), batch::toString);
        assertEquals(409, batch.body().get("results").get(0).get("status").asInt(), batch::toString);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }
}
