package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A database failover on PostgreSQL's own HA parts (scripts/ha-postgres.sh: pg_auto_failover,
 * one monitor and two data nodes with synchronous replication, HAProxy in front of three
 * brokers). 20,000 jobs go through HAProxy while 16 workers claim with 5-second leases and
 * heartbeat; the primary's machine dies (kill -9 of its keeper and postmaster) mid-run,
 * pg_auto_failover promotes the standby, the old primary comes back as a standby, and one broker
 * is killed behind HAProxy. Nothing acknowledged is lost, no job is worked under two leases, no
 * request gets a 500, and the brokers serve again within 30 s of the promotion, unrestarted.
 */
class HaFailoverIT {

    private static final Path SCRIPT = BrokerProcess.BASEDIR.resolve("scripts/ha-postgres.sh");
    private static final int JOBS = 20_000;
    private static final int BATCH = 100;
    private static final int WORKERS = 16;
    private static final int LEASE_SECONDS = 5;
    private static final String QUEUE = "ha";
    private static final URI LB = URI.create("http://127.0.0.1:" + System.getenv().getOrDefault("HA_LB_PORT", "6580") + "/");

    private static String jdbcUrl;
    private static final List<BrokerProcess> BROKERS = new ArrayList<>();

    private final Api api = new Api();
    private final Set<Long> accepted = ConcurrentHashMap.newKeySet();
    private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> defects = new ConcurrentLinkedQueue<>();
    private final AtomicInteger ioErrors = new AtomicInteger();
    private final AtomicInteger claims = new AtomicInteger();
    /** Client-side order of lease events: claims seen and completions accepted. */
    private final AtomicLong clock = new AtomicLong();
    private final ConcurrentLinkedQueue<long[]> claimEvents = new ConcurrentLinkedQueue<>();
    private final Map<Long, String> leaseOfClaim = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Object[]> completeEvents = new ConcurrentLinkedQueue<>();
    private final AtomicLong firstFailureMs = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong lastFailureMs = new AtomicLong();
    private final AtomicLong lastSuccessMs = new AtomicLong();
    private volatile boolean stop;

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    static String script(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(SCRIPT.toString()));
        cmd.addAll(List.of(args));
        Path log = BrokerProcess.LOGS.resolve("ha-postgres.log");
        Files.createDirectories(BrokerProcess.LOGS);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("ha-postgres.sh " + String.join(" ", args) + " did not finish");
        }
        Files.writeString(log, "$ ha-postgres.sh " + String.join(" ", args) + "\n" + out,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        if (p.exitValue() != 0) {
            throw new AssertionError("ha-postgres.sh " + String.join(" ", args) + " failed (" + p.exitValue() + "):\n" + out);
        }
        return out;
    }

    @BeforeAll
    static void startRig() throws Exception {
        boolean tools = onPath("pg_autoctl") && onPath("haproxy") && onPath("runuser");
        if (!tools) {
            System.out.println("HaFailoverIT skipped: needs pg_autoctl (postgresql-15-auto-failover, "
                    + "pg-auto-failover-cli), haproxy and runuser on PATH");
        }
        assumeTrue(tools, "needs pg_autoctl, haproxy and runuser");
        script("stop");
        script("start");
        jdbcUrl = script("url").strip();
        List<String> ports = new ArrayList<>();
        Api api = new Api();
        for (int i = 0; i < 3; i++) {
            BrokerProcess b = BrokerProcess.start("ha-" + i, Map.of("READPAST_DB_URL", jdbcUrl,
                    "READPAST_DB_USERNAME", "postgres", "READPAST_DB_PASSWORD", ""), BrokerProcess.BASEDIR);
            BROKERS.add(b);
            ports.add(Integer.toString(b.port));
            if (i == 0 || i == 2) {
                // the first one migrates the new database alone; then the other two start together
                await("brokers ready").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                        .until(() -> BROKERS.stream().allMatch(p -> {
                            if (!p.alive()) {
                                throw new AssertionError(p + " exited:\n" + p.logTail(30));
                            }
                            return p.ready(api);
                        }));
            }
        }
        List<String> lb = new ArrayList<>(List.of("lb"));
        lb.addAll(ports);
        script(lb.toArray(String[]::new));
        await("HAProxy forwards").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    try {
                        return api.get(LB, "q/health/ready", Duration.ofSeconds(2)).status() == 200;
                    } catch (IOException e) {
                        return false;
                    }
                });
    }

    @AfterAll
    static void stopRig() throws Exception {
        BROKERS.forEach(BrokerProcess::stop);
        if (onPath("pg_autoctl")) {
            script("stop");
        }
    }

    /** Sends one request through HAProxy; records what came back; null when it must be tried again. */
    private Api.Reply send(String path, Object body) throws InterruptedException {
        Api.Reply r;
        try {
            r = api.post(LB, path, body);
        } catch (IOException e) {
            ioErrors.incrementAndGet();
            failed();
            Thread.sleep(200);
            return null;
        }
        statuses.computeIfAbsent(r.status(), s -> new AtomicInteger()).incrementAndGet();
        if (r.status() >= 500) {
            failed();
            if (r.status() != 503 || r.retryAfter() == null) {
                defects.add("POST " + path + " answered " + r);
            }
            long wait = r.retryAfter() == null ? 500 : Math.min(2000, Long.parseLong(r.retryAfter()) * 1000);
            Thread.sleep(wait);
            return null;
        }
        lastSuccessMs.set(System.currentTimeMillis());
        return r;
    }

    private void failed() {
        long now = System.currentTimeMillis();
        firstFailureMs.accumulateAndGet(now, Math::min);
        lastFailureMs.accumulateAndGet(now, Math::max);
    }

    private void produce(int from, int to) throws InterruptedException {
        for (int start = from; start < to && !stop; start += BATCH) {
            List<Map<String, Object>> jobs = new ArrayList<>();
            for (int n = start; n < Math.min(to, start + BATCH); n++) {
                // a key per job, unique for an hour: a batch tried again after a lost answer makes no
                // second job, even when workers finished the first one meanwhile (an idempotencyKey alone
                // holds only while its job is unfinished, as docs/api.md says)
                jobs.add(Map.of("queue", QUEUE, "type", "ha", "payload", Map.of("n", n), "idempotencyKey", "ha-" + n,
                        "uniqueFor", 3600));
            }
            Api.Reply r = null;
            while (r == null && !stop) {
                r = send("jobs/batch", Map.of("jobs", jobs));
            }
            if (r == null) {
                return;
            }
            for (JsonNode item : r.body().get("results")) {
                int status = item.get("status").asInt();
                if (status == 201 || status == 200) {
                    accepted.add(Long.parseLong(item.get("id").asText()));
                } else {
                    defects.add("batch item answered " + item);
                }
            }
            Thread.sleep(150); // producers keep enqueueing through the whole run, at a steady pace
        }
    }

    private void work(int w) throws InterruptedException {
        String worker = "ha-w" + w;
        while (!stop) {
            Api.Reply r = send("claim", Map.of("workerId", worker, "queues", List.of(QUEUE), "limit", 20,
                    "leaseSeconds", LEASE_SECONDS, "waitSeconds", 1));
            if (r == null) {
                continue;
            }
            List<Map<String, Object>> items = new ArrayList<>();
            for (JsonNode job : r.body().get("jobs")) {
                long id = Long.parseLong(job.get("id").asText());
                String lease = job.get("leaseId").asText();
                claims.incrementAndGet();
                long at = clock.incrementAndGet();
                claimEvents.add(new long[] {id, at});
                leaseOfClaim.put(at, lease);
                items.add(Map.of("id", Long.toString(id), "leaseId", lease));
            }
            if (items.isEmpty()) {
                continue;
            }
            // a heartbeat on the first job of the batch, as a worker holding a job a while would
            Object first = items.get(0).get("id");
            send("jobs/" + first + "/heartbeat", Map.of("leaseId", items.get(0).get("leaseId"),
                    "leaseSeconds", LEASE_SECONDS));
            Api.Reply acked = null;
            while (acked == null && !stop) {
                acked = send("jobs/complete", Map.of("items", items));
            }
            if (acked == null) {
                return;
            }
            long at = clock.incrementAndGet();
            JsonNode results = acked.body().get("results");
            for (int k = 0; k < results.size(); k++) {
                if (results.get(k).get("status").asInt() == 200) {
                    completeEvents.add(new Object[] {Long.parseLong((String) items.get(k).get("id")),
                            items.get(k).get("leaseId"), at});
                }
            }
        }
    }

    private Connection db() throws Exception {
        return DriverManager.getConnection(jdbcUrl, "postgres", "");
    }

    private long count(String sql) throws Exception {
        try (Connection c = db(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String primaryNode() throws Exception {
        return script("primary").strip().split("\\s+")[0];
    }

    @Test
    void aPrimaryFailoverAndABrokerKillUnderLoadLoseNothingAndServeAgainWithoutARestart() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS + 2);
        List<Future<?>> tasks = new ArrayList<>();
        long started = System.currentTimeMillis();
        tasks.add(pool.submit(() -> {
            produce(0, JOBS / 2);
            return null;
        }));
        tasks.add(pool.submit(() -> {
            produce(JOBS / 2, JOBS);
            return null;
        }));
        for (int w = 0; w < WORKERS; w++) {
            int id = w;
            tasks.add(pool.submit(() -> {
                work(id);
                return null;
            }));
        }
        long promotedAt;
        long killedAt;
        String oldPrimary;
        try {
            await("a quarter of the jobs enqueued").atMost(Duration.ofSeconds(120)).until(() -> accepted.size() >= JOBS / 4);
            oldPrimary = primaryNode();
            killedAt = System.currentTimeMillis();
            script("kill", oldPrimary);
            await("pg_auto_failover promotes the standby").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        try {
                            return !primaryNode().equals(oldPrimary);
                        } catch (AssertionError e) {
                            return false; // no primary yet
                        }
                    });
            promotedAt = System.currentTimeMillis();
            script("revive", oldPrimary);
            await("the brokers serve again after the promotion").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100)).until(() -> lastSuccessMs.get() > promotedAt
                            && lastFailureMs.get() < lastSuccessMs.get());
            long servedAt = System.currentTimeMillis();
            await("half the jobs enqueued").atMost(Duration.ofSeconds(180)).until(() -> accepted.size() >= JOBS / 2);
            BrokerProcess victim = BROKERS.get(0);
            victim.kill();
            await("every job enqueued").atMost(Duration.ofSeconds(240)).until(() -> accepted.size() >= JOBS);
            await("every job SUCCEEDED").atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> count("SELECT count(*) FROM readpast_job_archive WHERE queue = '" + QUEUE
                            + "' AND status = 3") >= accepted.size());
            stop = true;
            Load.join(tasks, 60);

            // nothing acknowledged is lost, and each job SUCCEEDED once
            assertEquals(JOBS, accepted.size(), "20,000 distinct jobs acknowledged");
            assertEquals(accepted.size(), count("SELECT count(*) FROM readpast_job_archive WHERE queue = '" + QUEUE
                    + "' AND status = 3"), "every acknowledged job SUCCEEDED");
            assertEquals(0, count("SELECT count(*) FROM readpast_job WHERE queue = '" + QUEUE + "'"), "none left");
            assertEquals(0, count("SELECT count(*) FROM readpast_job_dead WHERE queue = '" + QUEUE + "'"), "none dead");
            assertEquals(0, count("SELECT count(*) FROM readpast_job WHERE status IN (1, 2) "
                    + "AND lease_expires_at < now() - interval '5 seconds'"), "no job stuck LEASED past its lease");
            // no job was worked under two leases: every accepted completion names the last lease claimed before it
            Map<Long, List<long[]>> byJob = new HashMap<>();
            for (long[] c : claimEvents) {
                byJob.computeIfAbsent(c[0], k -> new ArrayList<>()).add(c);
            }
            Set<Long> completedJobs = new java.util.HashSet<>();
            for (Object[] done : completeEvents) {
                long id = (Long) done[0];
                String lease = (String) done[1];
                long at = (Long) done[2];
                long latest = -1;
                for (long[] c : byJob.getOrDefault(id, List.of())) {
                    if (c[1] < at && c[1] > latest) {
                        latest = c[1];
                    }
                }
                if (latest < 0 || !lease.equals(leaseOfClaim.get(latest))) {
                    defects.add("job " + id + " completed under lease " + lease + " after a newer claim");
                }
                completedJobs.add(id);
            }
            assertEquals(accepted, completedJobs, "every job's completion was accepted by a worker");
            assertTrue(defects.isEmpty(), defects.size() + " defects, first: " + defects.stream().limit(10).toList());
            assertTrue(!statuses.containsKey(500), "no 500: " + statuses);
            long outage = lastFailureMs.get() >= firstFailureMs.get() ? lastFailureMs.get() - firstFailureMs.get() : 0;
            System.out.printf("HaFailoverIT: jobs=%d workers=%d brokers=3 (one killed) run=%.1fs killed %s at +%.1fs, "
                            + "promoted after %.1fs, served again %.1fs after the promotion; client-seen outage %.1fs, "
                            + "statuses %s, connection errors %d, claims %d, redeliveries %d%n",
                    JOBS, WORKERS, (System.currentTimeMillis() - started) / 1000.0, oldPrimary,
                    (killedAt - started) / 1000.0, (promotedAt - killedAt) / 1000.0, (servedAt - promotedAt) / 1000.0,
                    outage / 1000.0, statuses, ioErrors.get(), claims.get(), claims.get() - completedJobs.size());
            assertTrue(servedAt - promotedAt <= 30_000, "served again within 30 s of the promotion");
            assertTrue(BROKERS.get(1).alive() && BROKERS.get(2).alive(), "the other brokers ran on, unrestarted");
        } finally {
            stop = true;
            Load.stop(pool);
        }
    }
}
