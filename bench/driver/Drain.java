package driver;

import static driver.kit.Http.post;
import static driver.kit.Http.postRaw;
import static driver.kit.Opts.intOpt;
import static driver.kit.Opts.req;
import static driver.kit.Stats.pct;

import com.fasterxml.jackson.databind.JsonNode;
import driver.kit.Claims;
import driver.kit.Cpu;
import driver.kit.Http;
import driver.kit.Jdbc;
import driver.kit.Opts;
import driver.kit.Threads;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Mode "throughput": the drain. Producers batch-enqueue N no-op jobs (POST /jobs/batch, 1000 per
 * request), then W workers drain them until N completions were counted: each POST /claim (limit
 * B) acknowledges the worker's previous batch ("ack"), or with --ack-claim false POST /claim then
 * POST /jobs/complete per batch, or with --ack-claim single POST /jobs/{id}/complete per job. CPU of the broker process and of every PostgreSQL process is read
 * from /proc around each phase. Untimed warm-up rounds first (--warmup-jobs per round, repeated
 * until --warmup-seconds have passed); with --fair-keys, the rounds of {@link Fairness} follow
 * instead of one timed round.
 *
 * Options: --n, --warmup-jobs, --warmup-seconds, --warmup-queue, --queue, --keys, --workers,
 * --batch, --producers, --chunk, --broker-pid, --postmaster, --timeout, --between-cmd,
 * --ack-claim, and --pgss-url/--pgss-db (statements per 1000 jobs of every round but the warm-up's).
 *
 * Output: RESULT warmup, and per round RESULT enqueue, RESULT drain, RESULT broker_threads.
 */
final class Drain {
    private static Jdbc.Statements statements;

    private Drain() {
    }

    static void run() throws Exception {
        statements = Jdbc.Statements.open();
        int n = intOpt("n", 5000);
        int warmup = intOpt("warmup-jobs", 0);
        double warmupSeconds = Opts.doubleOpt("warmup-seconds", "0");
        String queue = Opts.get("queue", "bench");
        // Untimed rounds on their own queue warm the broker's JIT: the first is reported as the
        // "cold" round (a freshly started broker, as the JVM peers are measured); more rounds
        // follow until warmup-seconds have passed (the JIT compiles per request, and a round of
        // N jobs is only N/B claims). Then the timed round.
        // After warmup-seconds, rounds go on while the JIT compiler threads still took more than
        // 2% of the broker's CPU in the last round's drain (a broker that has run for a while has
        // compiled its hot paths), for at most four times warmup-seconds.
        if (warmup > 0) {
            long w0 = System.nanoTime();
            String warmQueue = Opts.get("warmup-queue", "warmup");
            double jit = round("cold", warmQueue, warmup, 0)[0];
            int rounds = 1;
            while ((System.nanoTime() - w0) / 1e9 < warmupSeconds
                    || (jit > 0.02 && (System.nanoTime() - w0) / 1e9 < 4 * warmupSeconds)) {
                jit = round("warm" + ++rounds, warmQueue, warmup, 0)[0];
            }
            System.out.printf(Locale.ROOT, "RESULT warmup rounds=%d jobs=%d seconds=%.1f jit_share_last_round=%.3f%n", rounds,
                    (long) rounds * warmup, (System.nanoTime() - w0) / 1e9, jit);
        }
        if (Opts.has("fair-keys")) {
            Fairness.run(queue, n, warmup);
            return;
        }
        int keys = intOpt("keys", 0);
        if (keys > 0) {
            Fairness.makeFair(queue);
        }
        round("timed", queue, n, keys);
    }

    /** A POST /jobs/batch body of {@code size} noop jobs; with {@code keys} > 0, job i has the key "k" + (i mod keys). */
    static String items(String queue, int size, int first, int keys) {
        StringBuilder sb = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < size; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"type\":\"noop\",\"payload\":{}");
            if (keys > 0) {
                sb.append(",\"fairnessKey\":\"k").append((first + i) % keys).append('"');
            }
            sb.append('}');
        }
        return sb.append("]}").toString();
    }

    /**
     * One enqueue-and-drain round, with {@code keys} fairness keys (0: none); returns the JIT
     * compiler threads' share of the broker's drain CPU and the drain's jobs per second.
     */
    static double[] round(String label, String queue, int n, int keys) throws Exception {
        int workers = intOpt("workers", 16);
        int batch = intOpt("batch", 50);
        int producers = intOpt("producers", 3);
        int chunk = intOpt("chunk", 1000);
        long brokerPid = Long.parseLong(req("broker-pid"));
        long postmaster = Long.parseLong(req("postmaster"));
        long timeoutNs = TimeUnit.SECONDS.toNanos(intOpt("timeout", 600));
        boolean counted = statements != null && !label.equals("cold") && !label.startsWith("warm");

        // ---- enqueue: P producers, chunks of 1000 jobs per POST /jobs/batch
        int chunks = (n + chunk - 1) / chunk;
        Map<Integer, String> bodies = new ConcurrentHashMap<>();
        AtomicInteger nextChunk = new AtomicInteger();
        AtomicLong enqueued = new AtomicLong();
        List<Long> batchNs = Collections.synchronizedList(new ArrayList<>());
        Cpu cpu0 = Cpu.read(brokerPid, postmaster);
        long t0 = System.nanoTime();
        Threads.runThreads(producers, "producer", p -> {
            int c;
            while ((c = nextChunk.getAndIncrement()) < chunks) {
                int size = Math.min(chunk, n - c * chunk);
                int first = c * chunk;
                // with --keys K, job i carries the fairness key "k" + (i mod K): K keys, evenly
                String body = keys > 0 ? items(queue, size, first, keys) : bodies.computeIfAbsent(size,
                        s -> items(queue, s, 0, 0));
                long s0 = System.nanoTime();
                JsonNode r = post("/jobs/batch", body, 200);
                batchNs.add(System.nanoTime() - s0);
                int ok = r.path("succeeded").asInt(-1);
                if (ok != size) {
                    throw new IllegalStateException("batch enqueue: " + ok + " of " + size + " succeeded: "
                            + Http.abbreviate(r.toString()));
                }
                enqueued.addAndGet(ok);
            }
        });
        long t1 = System.nanoTime();
        Cpu cpu1 = Cpu.read(brokerPid, postmaster);
        double enqS = (t1 - t0) / 1e9;
        System.out.printf(Locale.ROOT,
                "RESULT enqueue round=%s queue=%s jobs=%d producers=%d chunk=%d seconds=%.3f jobs_per_s=%.1f"
                        + " request_ms_p50=%.1f broker_cpu_s=%.2f pg_cpu_s=%.2f%n",
                label, queue, enqueued.get(), producers, chunk, enqS, enqueued.get() / enqS,
                pct(batchNs, 50) / 1e6, cpu1.brokerS(cpu0), cpu1.pgS(cpu0));
        System.out.flush();

        // bench/run passes a shell command to run between the phases (ANALYZE and CHECKPOINT,
        // as for the ceiling's preloaded table: autovacuum may be off on the server)
        String between = Opts.get("between-cmd");
        if (between != null) {
            Process p = new ProcessBuilder("bash", "-c", between)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("between-cmd failed: " + between);
            }
        }
        if (counted) {
            statements.reset();
        }

        // ---- drain: W workers, claim limit B then batch complete
        AtomicLong completed = new AtomicLong();
        AtomicLong claims = new AtomicLong();
        AtomicLong emptyClaims = new AtomicLong();
        AtomicLong lost = new AtomicLong();
        AtomicLong endNs = new AtomicLong();
        List<Long> claimNs = Collections.synchronizedList(new ArrayList<>());
        List<Long> completeNs = Collections.synchronizedList(new ArrayList<>());
        Map<String, Long> threads0 = Cpu.threadTicks(brokerPid);
        Cpu cpu2 = Cpu.read(brokerPid, postmaster);
        long d0 = System.nanoTime();
        // --ack-claim: true (acks ride on the next claim), false (POST /jobs/complete per batch), or
        // single (POST /jobs/{id}/complete per job, as a worker without batching does)
        boolean singleAcks = "single".equals(Opts.get("ack-claim", "true"));
        boolean ackClaim = !singleAcks && !"false".equals(Opts.get("ack-claim", "true"));
        Threads.runThreads(workers, "worker", w -> {
            String claimBody = "{\"workerId\":\"bench-w" + w + "\",\"queues\":[\"" + queue + "\"],\"limit\":" + batch
                    + ",\"leaseSeconds\":60";
            List<Long> myClaim = new ArrayList<>();
            List<Long> myComplete = new ArrayList<>();
            String acks = null;  // the last batch, acknowledged with the next claim (ack-claim mode)
            int acking = 0;
            int empties = 0;
            while (completed.get() < n) {
                if (System.nanoTime() - d0 > timeoutNs) {
                    throw new IllegalStateException("drain timed out at " + completed.get() + " of " + n);
                }
                long c0 = System.nanoTime();
                byte[] answer = postRaw("/claim", acks == null ? claimBody + "}" : claimBody + ",\"ack\":" + acks + "}", 200);
                long c1 = System.nanoTime();
                myClaim.add(c1 - c0);
                claims.incrementAndGet();
                StringBuilder sb = new StringBuilder("[");
                int[] got = Claims.read(answer, sb);  // {jobs, acks answered 200}
                sb.append("]");
                if (acks != null) {
                    lost.addAndGet(acking - got[1]);
                    if (completed.addAndGet(got[1]) >= n) {
                        endNs.compareAndSet(0, System.nanoTime());
                    }
                    acks = null;
                    acking = 0;
                }
                if (got[0] == 0) {
                    // nothing claimable (the drain's tail, or rows other claims hold): back off
                    // 2 ms, doubling up to 20 ms, as a worker would rather than spin
                    emptyClaims.incrementAndGet();
                    LockSupport.parkNanos(Math.min(20_000_000L, 2_000_000L << Math.min(4, empties++)));
                    continue;
                }
                empties = 0;
                if (ackClaim) {
                    acks = sb.toString();
                    acking = got[0];
                    continue;
                }
                long k0 = System.nanoTime();
                int ok;
                if (singleAcks) {
                    ok = 0;
                    for (JsonNode item : Http.JSON.readTree(sb.toString())) {
                        long s0 = System.nanoTime();
                        postRaw("/jobs/" + item.path("id").asText() + "/complete",
                                "{\"leaseId\":\"" + item.path("leaseId").asText() + "\"}", 200);
                        myComplete.add(System.nanoTime() - s0);
                        ok++;
                    }
                } else {
                    JsonNode r = post("/jobs/complete", "{\"items\":" + sb + "}", 200);
                    myComplete.add(System.nanoTime() - k0);
                    ok = r.path("succeeded").asInt(0);
                }
                lost.addAndGet(got[0] - ok);
                if (completed.addAndGet(ok) >= n) {
                    endNs.compareAndSet(0, System.nanoTime());
                }
            }
            claimNs.addAll(myClaim);
            completeNs.addAll(myComplete);
        });
        Cpu cpu3 = Cpu.read(brokerPid, postmaster);
        Map<String, Long> threads1 = Cpu.threadTicks(brokerPid);
        double drainS = (endNs.get() - d0) / 1e9;
        double k = completed.get() / 1000.0;
        String statementFields = counted ? statements.report("drain_" + label, completed.get()) : "";
        System.out.printf(Locale.ROOT,
                "RESULT drain round=%s queue=%s jobs=%d workers=%d batch=%d seconds=%.3f jobs_per_s=%.1f claims=%d"
                        + " empty_claims=%d lost=%d claim_ms_p50=%.2f claim_ms_p99=%.2f complete_ms_p50=%.2f"
                        + " complete_ms_p99=%.2f broker_cpu_s=%.2f pg_cpu_s=%.2f broker_cpu_s_per_1k=%.4f"
                        + " pg_cpu_s_per_1k=%.4f driver_cpu_s=%.2f driver_cpu_s_per_1k=%.4f other_cpu_s=%.2f%s%n",
                label, queue, completed.get(), workers, batch, drainS, completed.get() / drainS, claims.get(),
                emptyClaims.get(), lost.get(), pct(claimNs, 50) / 1e6, pct(claimNs, 99) / 1e6,
                pct(completeNs, 50) / 1e6, pct(completeNs, 99) / 1e6, cpu3.brokerS(cpu2), cpu3.pgS(cpu2),
                cpu3.brokerS(cpu2) / k, cpu3.pgS(cpu2) / k, cpu3.selfS(cpu2), cpu3.selfS(cpu2) / k,
                cpu3.otherS(cpu2), statementFields);
        // where the broker's CPU went during the drain, by thread group (JIT, GC, event loops, ...)
        Map<String, Long> delta = new HashMap<>();
        threads1.forEach((name, t) -> delta.merge(name, t - threads0.getOrDefault(name, 0L), Long::sum));
        StringBuilder groups = new StringBuilder();
        delta.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(8)
                .forEach(e -> groups.append(groups.isEmpty() ? "" : ",")
                        .append(e.getKey()).append(':').append(String.format(Locale.ROOT, "%.2f", e.getValue() / (double) Cpu.HZ)));
        System.out.printf(Locale.ROOT, "RESULT broker_threads round=%s cpu_s_by_thread=%s%n", label, groups);
        System.out.flush();
        long all = delta.values().stream().mapToLong(Long::longValue).sum();
        long jit = delta.entrySet().stream().filter(e -> e.getKey().contains("Compiler"))
                .mapToLong(Map.Entry::getValue).sum();
        return new double[] {all <= 0 ? 0 : Math.max(0, jit / (double) all), completed.get() / drainS};
    }
}
