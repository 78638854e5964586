// Readpast benchmark driver: a single-file Java program, run by bench/run as
//
//   java -cp '<quarkus-app>/lib/main/*:<quarkus-app>/app/*' bench/Driver.java <mode> --url http://127.0.0.1:PORT [options]
//
// so that it can use the Jackson jars the broker ships. Modes:
//
//   throughput  producers batch-enqueue N no-op jobs (POST /jobs/batch, 1000 per request), then W
//               workers drain them until N completions were counted: each POST /claim (limit B)
//               acknowledges the worker's previous batch ("ack"), or with --ack-claim false
//               POST /claim then POST /jobs/complete per batch. CPU of the broker process and of every PostgreSQL process is read
//               from /proc around each phase. Untimed warm-up rounds first (--warmup-jobs per
//               round, repeated until --warmup-seconds have passed).
//   latency     W long-polling workers (waitSeconds 30, limit 1, each job acknowledged with the
//               next claim) and one
//               producer offering a fixed rate (POST /jobs one at a time, open loop); reports
//               enqueue-to-claim latency (System.nanoTime just before the enqueue request is sent
//               to the claim response that carries the job, same process).
//   backlog     one client, sequential single claims (limit 1) each followed by a complete.
//   sustained   producers and workers at once, ~1 KB JSON payloads: the maximum with a steady
//               backlog, or a fixed offered rate with enqueue-to-claim latency (see sustained()).
//   ceiling     no broker: JDBC clients run the broker's own statement files (job_insert_many,
//               then job_ack_claim), loaded by the broker's StatementCatalog, straight against
//               --jdbc (either engine), as bench/run's pgbench ceiling does on PostgreSQL; run
//               with '<quarkus-app>/app/*' on the classpath too (see ceiling()).
//
// Results go to stdout as single lines "RESULT <what> key=value ..." for bench/run to parse;
// progress goes to stderr. Exit status non-zero on any failure.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

public class Driver {

    static final ObjectMapper JSON = new ObjectMapper();
    static HttpClient http;
    static String base;
    static Map<String, String> opts = new HashMap<>();

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            die("usage: Driver <throughput|latency|backlog|idle> --url URL [--key value ...]");
        }
        String mode = args[0];
        for (int i = 1; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                die("bad option " + args[i]);
            }
            opts.put(args[i].substring(2), args[i + 1]);
        }
        if (mode.equals("ceiling")) {
            Ceiling.run();
            System.exit(0);
        }
        base = req("url");
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        switch (mode) {
            case "throughput" -> throughput();
            case "latency" -> latency();
            case "backlog" -> backlog();
            case "idle" -> idle();
            case "sustained" -> sustained();
            default -> die("unknown mode " + mode);
        }
        System.exit(0);
    }

    // ---- throughput ------------------------------------------------------------------------

    static void throughput() throws Exception {
        int n = intOpt("n", 5000);
        int warmup = intOpt("warmup-jobs", 0);
        double warmupSeconds = Double.parseDouble(opts.getOrDefault("warmup-seconds", "0"));
        String queue = opts.getOrDefault("queue", "bench");
        // Untimed rounds on their own queue warm the broker's JIT: the first is reported as the
        // "cold" round (a freshly started broker, as the JVM peers are measured); more rounds
        // follow until warmup-seconds have passed (the JIT compiles per request, and a round of
        // N jobs is only N/B claims). Then the timed round.
        // After warmup-seconds, rounds go on while the JIT compiler threads still took more than
        // 2% of the broker's CPU in the last round's drain (a broker that has run for a while has
        // compiled its hot paths), for at most four times warmup-seconds.
        if (warmup > 0) {
            long w0 = System.nanoTime();
            String warmQueue = opts.getOrDefault("warmup-queue", "warmup");
            double jit = round("cold", warmQueue, warmup, 0)[0];
            int rounds = 1;
            while ((System.nanoTime() - w0) / 1e9 < warmupSeconds
                    || (jit > 0.02 && (System.nanoTime() - w0) / 1e9 < 4 * warmupSeconds)) {
                jit = round("warm" + ++rounds, warmQueue, warmup, 0)[0];
            }
            System.out.printf(Locale.ROOT, "RESULT warmup rounds=%d jobs=%d seconds=%.1f jit_share_last_round=%.3f%n", rounds,
                    (long) rounds * warmup, (System.nanoTime() - w0) / 1e9, jit);
        }
        String fairKeys = opts.get("fair-keys");
        if (fairKeys == null) {
            int keys = intOpt("keys", 0);
            if (keys > 0) {
                makeFair(queue);
            }
            round("timed", queue, n, keys);
            return;
        }
        // --fair-keys "1 100 10000": the fair queues against the plain one, all in this process
        // (the driver as warm for every queue). An untimed round on a fair queue first, so that
        // the broker's fair claim path is as warm as its plain one; then --repeat R times a plain
        // round and one round per key count, back to back, each ratio taken within its
        // repetition (the plain round just before), and the median ratio reported.
        int repeat = intOpt("repeat", 1);
        int[] keyCounts = Arrays.stream(fairKeys.trim().split("[ ,]+")).mapToInt(Integer::parseInt).toArray();
        if (warmup > 0) {
            makeFair(queue + "_warm_fair");
            round("warm_fair", queue + "_warm_fair", warmup, 100);
        }
        Map<Integer, List<Double>> ratios = new java.util.TreeMap<>();
        Map<Integer, List<Double>> rates = new java.util.TreeMap<>();
        for (int r = 1; r <= repeat; r++) {
            String plainQueue = queue + "_plain_" + r;
            double plainRate = round("fair_plain_r" + r, plainQueue, n, 0)[1];
            rates.computeIfAbsent(0, k -> new ArrayList<>()).add(plainRate);
            for (int k : keyCounts) {
                String fq = queue + "_" + k + "_" + r;
                makeFair(fq);
                double rate = round("fair_k" + k + "_r" + r, fq, n, k)[1];
                rates.computeIfAbsent(k, x -> new ArrayList<>()).add(rate);
                ratios.computeIfAbsent(k, x -> new ArrayList<>()).add(rate / plainRate);
            }
        }
        System.out.printf(Locale.ROOT, "RESULT fair_plain repeat=%d jobs_per_s_median=%.1f jobs_per_s_all=%s%n", repeat,
                median(rates.get(0)), joined(rates.get(0), "%.1f"));
        for (int k : keyCounts) {
            System.out.printf(Locale.ROOT, "RESULT fair keys=%d repeat=%d jobs_per_s_median=%.1f ratio_median=%.2f ratio_all=%s%n",
                    k, repeat, median(rates.get(k)), median(ratios.get(k)), joined(ratios.get(k), "%.2f"));
        }
    }

    /** Makes {@code queue} a fair queue (round-robin between the jobs' fairness keys), before its jobs come. */
    static void makeFair(String queue) throws Exception {
        HttpRequest put = HttpRequest.newBuilder(URI.create(base + "/queues/" + queue))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"fairness\":\"round-robin\"}")).build();
        HttpResponse<String> r = http.send(put, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("PUT /queues/" + queue + " -> " + r.statusCode() + ": " + r.body());
        }
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        java.util.Collections.sort(s);
        int m = s.size() / 2;
        return s.size() % 2 == 1 ? s.get(m) : (s.get(m - 1) + s.get(m)) / 2;
    }

    static String joined(List<Double> xs, String format) {
        StringBuilder sb = new StringBuilder();
        for (double x : xs) {
            sb.append(sb.isEmpty() ? "" : ",").append(String.format(Locale.ROOT, format, x));
        }
        return sb.toString();
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

        // ---- enqueue: P producers, chunks of 1000 jobs per POST /jobs/batch
        int chunks = (n + chunk - 1) / chunk;
        Map<Integer, String> bodies = new ConcurrentHashMap<>();
        AtomicInteger nextChunk = new AtomicInteger();
        AtomicLong enqueued = new AtomicLong();
        List<Long> batchNs = java.util.Collections.synchronizedList(new ArrayList<>());
        Cpu cpu0 = Cpu.read(brokerPid, postmaster);
        long t0 = System.nanoTime();
        runThreads(producers, "producer", p -> {
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
                            + abbreviate(r.toString()));
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
        String between = opts.get("between-cmd");
        if (between != null) {
            Process p = new ProcessBuilder("bash", "-c", between)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("between-cmd failed: " + between);
            }
        }

        // ---- drain: W workers, claim limit B then batch complete
        AtomicLong completed = new AtomicLong();
        AtomicLong claims = new AtomicLong();
        AtomicLong emptyClaims = new AtomicLong();
        AtomicLong lost = new AtomicLong();
        AtomicLong endNs = new AtomicLong();
        List<Long> claimNs = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Long> completeNs = java.util.Collections.synchronizedList(new ArrayList<>());
        Map<String, Long> threads0 = threadTicks(brokerPid);
        Cpu cpu2 = Cpu.read(brokerPid, postmaster);
        long d0 = System.nanoTime();
        boolean ackClaim = !"false".equals(opts.getOrDefault("ack-claim", "true"));
        runThreads(workers, "worker", w -> {
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
                int[] got = readClaim(answer, sb);  // {jobs, acks answered 200}
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
                JsonNode r = post("/jobs/complete", "{\"items\":" + sb + "}", 200);
                myComplete.add(System.nanoTime() - k0);
                int ok = r.path("succeeded").asInt(0);
                lost.addAndGet(got[0] - ok);
                if (completed.addAndGet(ok) >= n) {
                    endNs.compareAndSet(0, System.nanoTime());
                }
            }
            claimNs.addAll(myClaim);
            completeNs.addAll(myComplete);
        });
        Cpu cpu3 = Cpu.read(brokerPid, postmaster);
        Map<String, Long> threads1 = threadTicks(brokerPid);
        double drainS = (endNs.get() - d0) / 1e9;
        double k = completed.get() / 1000.0;
        System.out.printf(Locale.ROOT,
                "RESULT drain round=%s queue=%s jobs=%d workers=%d batch=%d seconds=%.3f jobs_per_s=%.1f claims=%d"
                        + " empty_claims=%d lost=%d claim_ms_p50=%.2f claim_ms_p99=%.2f complete_ms_p50=%.2f"
                        + " complete_ms_p99=%.2f broker_cpu_s=%.2f pg_cpu_s=%.2f broker_cpu_s_per_1k=%.4f"
                        + " pg_cpu_s_per_1k=%.4f driver_cpu_s=%.2f driver_cpu_s_per_1k=%.4f other_cpu_s=%.2f%n",
                label, queue, completed.get(), workers, batch, drainS, completed.get() / drainS, claims.get(),
                emptyClaims.get(), lost.get(), pct(claimNs, 50) / 1e6, pct(claimNs, 99) / 1e6,
                pct(completeNs, 50) / 1e6, pct(completeNs, 99) / 1e6, cpu3.brokerS(cpu2), cpu3.pgS(cpu2),
                cpu3.brokerS(cpu2) / k, cpu3.pgS(cpu2) / k, cpu3.selfS(cpu2), cpu3.selfS(cpu2) / k,
                cpu3.otherS(cpu2));
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

    /**
     * Reads a claim answer with a streaming parser: appends {"id", "leaseId", "result": null} for
     * each job to {@code ack} (comma-separated) and returns {jobs, acks answered 200}.
     */
    static int[] readClaim(byte[] body, StringBuilder ack) throws IOException {
        return readClaimTimes(body, ack, null);
    }

    /** utime+stime per thread group of a process: thread names with digits and spaces folded. */
    static Map<String, Long> threadTicks(long pid) {
        Map<String, Long> out = new HashMap<>();
        try (var dirs = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path d : dirs) {
                try {
                    String s = Files.readString(d.resolve("stat"));
                    String comm = s.substring(s.indexOf('(') + 1, s.lastIndexOf(')'));
                    String group = comm.replaceAll("[0-9]+", "#").replaceAll("[^A-Za-z#._-]+", "_");
                    String[] f = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
                    out.merge(group, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (IOException | RuntimeException e) {
                    // thread ended
                }
            }
        } catch (IOException e) {
            // process gone
        }
        return out;
    }

    // ---- idle ------------------------------------------------------------------------------

    /**
     * W long-polling workers on an empty queue (waitSeconds 30, one keep-alive connection each)
     * for --seconds; prints how many claims answered (each answer is an empty batch after its
     * wait). The caller counts the database's transactions meanwhile.
     */
    static void idle() throws Exception {
        int workers = intOpt("workers", 100);
        double seconds = Double.parseDouble(opts.getOrDefault("seconds", "60"));
        String queue = opts.getOrDefault("queue", "idle");
        long end = System.nanoTime() + (long) (seconds * 1e9);
        AtomicInteger answers = new AtomicInteger();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            String body = "{\"workerId\":\"idle-w" + w + "\",\"queues\":[\"" + queue
                    + "\"],\"limit\":1,\"waitSeconds\":30}";
            Thread t = Thread.ofPlatform().daemon().name("idle-worker-" + w).start(() -> {
                try {
                    while (System.nanoTime() < end) {
                        if (post("/claim", body, 200).path("jobs").size() != 0) {
                            throw new IllegalStateException("the idle queue had a job");
                        }
                        answers.incrementAndGet();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(t);
        }
        Thread.sleep((long) (seconds * 1000));
        if (!errors.isEmpty()) {
            throw new IllegalStateException("idle worker failed", errors.get(0));
        }
        System.out.printf(Locale.ROOT, "RESULT idle workers=%d seconds=%.0f answers=%d%n", workers, seconds, answers.get());
        System.out.flush();
        // the workers' last waits are still open: the caller stops the broker
    }

    // ---- latency ---------------------------------------------------------------------------

    static void latency() throws Exception {
        int workers = intOpt("workers", 16);
        double rate = Double.parseDouble(opts.getOrDefault("rate", "50"));
        double seconds = Double.parseDouble(opts.getOrDefault("seconds", "20"));
        double warmup = Double.parseDouble(opts.getOrDefault("warmup", "2"));
        String queue = opts.getOrDefault("queue", "lat");
        // Untimed warm-up: `warmup` seconds at `warmup-rate` (default five times the rate), so that
        // the broker's single-enqueue and long-poll paths and this client are compiled (a broker
        // at 50 jobs/s for an hour is); then, once every warm-up job was claimed and after a
        // short pause, `seconds` at `rate`.
        double warmRate = Double.parseDouble(opts.getOrDefault("warmup-rate", String.valueOf(rate * 5)));
        int warm = (int) Math.round(warmRate * warmup);
        int total = warm + (int) Math.round(rate * seconds);
        long periodNs = (long) (1e9 / rate);
        long warmPeriodNs = (long) (1e9 / warmRate);
        // written by the producer, read by the workers: an atomic array for visibility
        java.util.concurrent.atomic.AtomicLongArray sentAt = new java.util.concurrent.atomic.AtomicLongArray(total);
        long[] latency = new long[total];
        Arrays.fill(latency, -1);
        AtomicInteger received = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Long> enqueueNs = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger enqueueErrors = new AtomicInteger();

        CountDownLatch ready = new CountDownLatch(workers);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int w = 0; w < workers; w++) {
            String body = "{\"workerId\":\"lat-w" + w + "\",\"queues\":[\"" + queue
                    + "\"],\"limit\":1,\"leaseSeconds\":60,\"waitSeconds\":30";
            Thread t = new Thread(() -> {
                try {
                    ready.countDown();
                    String ack = "";  // the last job, acknowledged with the next (long-polling) claim
                    while (!stop.get()) {
                        JsonNode jobs = post("/claim", body + ack + "}", 200).path("jobs");
                        long now = System.nanoTime();
                        ack = "";
                        for (JsonNode j : jobs) {
                            JsonNode seq = j.path("payload").path("seq");
                            if (seq.isInt()) {
                                int s = seq.asInt();
                                synchronized (latency) {
                                    if (latency[s] < 0) {
                                        latency[s] = now - sentAt.get(s);
                                        received.incrementAndGet();
                                    } else {
                                        duplicates.incrementAndGet();
                                    }
                                }
                            }
                            ack = ",\"ack\":[{\"id\":\"" + j.path("id").asText() + "\",\"leaseId\":\""
                                    + j.path("leaseId").asText() + "\"}]";
                            if ("stop".equals(j.path("type").asText())) {
                                return;
                            }
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "lat-worker-" + w);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        ready.await();
        Thread.sleep(500); // let every worker reach its long poll

        long start = System.nanoTime();
        long measuredStart = start;
        for (int s = 0; s < total; s++) {
            if (s == warm && warm > 0) {
                // the measured jobs must not queue behind a warm-up backlog
                long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (received.get() < warm && System.nanoTime() < drainDeadline && errors.isEmpty()) {
                    Thread.sleep(5);
                }
                if (received.get() < warm) {
                    throw new IllegalStateException("latency warm-up: " + received.get() + " of " + warm
                            + " jobs claimed within 60 s");
                }
                Thread.sleep(200);
                measuredStart = System.nanoTime();
            }
            long due = s < warm ? start + s * warmPeriodNs : measuredStart + (s - warm) * periodNs;
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            String body = "{\"queue\":\"" + queue + "\",\"type\":\"noop\",\"payload\":{\"seq\":" + s + "}}";
            // the same lean keep-alive client as the workers (java.net.http's own thread hops cost
            // milliseconds on an idle two-core machine); one request at a time: at the offered
            // rate each is done long before the next is due, and a late one is sent at once
            long sent = System.nanoTime();
            sentAt.set(s, sent);
            try {
                postRaw("/jobs", body, 201);
                if (s >= warm) {
                    enqueueNs.add(System.nanoTime() - sent);
                }
            } catch (IOException | RuntimeException e) {
                enqueueErrors.incrementAndGet();
            }
        }
        long offeredEnd = System.nanoTime();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(35);
        while (received.get() < total && System.nanoTime() < deadline && errors.isEmpty()) {
            Thread.sleep(20);
        }
        // wake every worker with a stop job
        stop.set(true);
        for (int w = 0; w < workers; w++) {
            post("/jobs", "{\"queue\":\"" + queue + "\",\"type\":\"stop\",\"payload\":{}}", 201);
        }
        for (Thread t : threads) {
            t.join(5000);
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("latency worker failed", errors.get(0));
        }
        List<Long> measured = new ArrayList<>();
        int missing = 0;
        for (int s = warm; s < total; s++) {
            if (latency[s] < 0) {
                missing++;
            } else {
                measured.add(latency[s]);
            }
        }
        double actualRate = (total - warm - 1) / ((offeredEnd - measuredStart) / 1e9);
        System.out.printf(Locale.ROOT,
                "RESULT latency jobs=%d warmup_jobs=%d rate=%.1f offered_rate=%.1f workers=%d missing=%d duplicates=%d"
                        + " enqueue_errors=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f mean_ms=%.2f enqueue_ms_p50=%.2f"
                        + " enqueue_ms_p99=%.2f%n",
                measured.size(), warm, rate, actualRate, workers, missing, duplicates.get(), enqueueErrors.get(),
                pct(measured, 50) / 1e6, pct(measured, 99) / 1e6, pct(measured, 100) / 1e6, mean(measured) / 1e6,
                pct(enqueueNs, 50) / 1e6, pct(enqueueNs, 99) / 1e6);
        if (missing > 0) {
            throw new IllegalStateException(missing + " latency jobs were never claimed");
        }
    }

    // ---- sustained -------------------------------------------------------------------------

    /**
     * Producers and workers at once, for --warmup-seconds (untimed) and then --seconds (timed).
     * Every job carries a payload of about --payload-bytes bytes of JSON with the producer's
     * System.nanoTime at the send of its enqueue request ("t"), so a worker's claim gives the
     * job's enqueue-to-claim latency (same process, same clock).
     * --rate 0: producers first enqueue --backlog jobs, then the workers start and the producers
     * keep the backlog (enqueued, not yet claimed) at about --backlog jobs, so the workers never
     * wait: the completions per second over the window are the sustained maximum (its latency is
     * the backlog's wait). --rate R: --rate-producers producers offer R jobs/s in all, open loop,
     * in requests of up to --chunk jobs (POST /jobs/batch); a job's "t" is when its request was
     * sent, and how late each request was sent after its due time is reported beside (late_ms:
     * a producer waiting on slow answers); after the window the workers go on until every job
     * sent in it was claimed (at most 15 s).
     * Workers: POST /claim with limit --batch, waitSeconds 1, each batch acknowledged with the
     * worker's next claim.
     */
    static void sustained() throws Exception {
        int workers = intOpt("workers", 16);
        int batch = intOpt("batch", 200);
        int producers = intOpt("producers", 3);
        int chunk = intOpt("chunk", 500);
        int payloadBytes = intOpt("payload-bytes", 1024);
        int backlog = intOpt("backlog", 20000);
        double rate = Double.parseDouble(opts.getOrDefault("rate", "0"));
        double seconds = Double.parseDouble(opts.getOrDefault("seconds", "60"));
        double warmupS = Double.parseDouble(opts.getOrDefault("warmup-seconds", "10"));
        String queue = opts.getOrDefault("queue", "sustained");
        String label = opts.getOrDefault("label", rate > 0 ? "rate" : "max");
        long[] brokerPids = Arrays.stream(req("broker-pid").split(",")).mapToLong(Long::parseLong).toArray();
        long postmaster = Long.parseLong(req("postmaster"));

        // {"t":<nanoTime>,"pad":"xxx..."}: the pad brings the payload to payloadBytes with a 19-digit t
        String pad = "x".repeat(Math.max(0, payloadBytes - "{\"t\":1234567890123456789,\"pad\":\"\"}".length()));
        String itemHead = "{\"queue\":\"" + queue + "\",\"type\":\"work\",\"payload\":{\"t\":";
        String itemTail = ",\"pad\":\"" + pad + "\"}}";

        AtomicLong enqueued = new AtomicLong();
        AtomicLong claimed = new AtomicLong();
        AtomicLong completed = new AtomicLong();
        AtomicLong lost = new AtomicLong();
        AtomicLong claims = new AtomicLong();
        AtomicLong emptyClaims = new AtomicLong();
        AtomicLong enqueueErrors = new AtomicLong();
        AtomicLong sentInWindow = new AtomicLong();
        AtomicLong claimedInWindow = new AtomicLong();  // jobs sent in the window, claimed so far
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicBoolean stop = new AtomicBoolean();
        // max mode: the producers fill the backlog first, and the clock starts when the workers do
        AtomicLong answered = new AtomicLong();
        CountDownLatch filled = new CountDownLatch(rate > 0 ? 0 : 1);
        // t0, start and end of the timed window: in max mode set again once the backlog is filled,
        // before the workers are let go
        java.util.concurrent.atomic.AtomicLongArray window = new java.util.concurrent.atomic.AtomicLongArray(3);
        CountDownLatch go = new CountDownLatch(1);
        List<long[]> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Long> enqueueNs = java.util.Collections.synchronizedList(new ArrayList<>());
        // rate mode: how late each request was sent after its due time (the producers keeping up)
        List<Long> lateNs = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();

        for (int w = 0; w < workers; w++) {
            int index = w;
            Thread t = new Thread(() -> {
                String claimBody = "{\"workerId\":\"sus-w" + index + "\",\"queues\":[\"" + queue + "\"],\"limit\":"
                        + batch + ",\"leaseSeconds\":60,\"waitSeconds\":1";
                long[] mine = new long[1 << 16];
                int count = 0;
                String acks = null;
                int acking = 0;
                try {
                    go.await();
                    long winStart = window.get(1);
                    long winEnd = window.get(2);
                    while (!stop.get()) {
                        byte[] answer = postRaw("/claim", acks == null ? claimBody + "}"
                                : claimBody + ",\"ack\":" + acks + "}", 200);
                        long now = System.nanoTime();
                        claims.incrementAndGet();
                        StringBuilder sb = new StringBuilder("[");
                        List<Long> sent = new ArrayList<>();
                        int[] got = readClaimTimes(answer, sb, sent);
                        sb.append("]");
                        if (acks != null) {
                            lost.addAndGet(acking - got[1]);
                            completed.addAndGet(got[1]);
                        }
                        acks = got[0] == 0 ? null : sb.toString();
                        acking = got[0];
                        if (got[0] == 0) {
                            emptyClaims.incrementAndGet();
                            continue;
                        }
                        claimed.addAndGet(got[0]);
                        for (long s : sent) {
                            if (s >= winStart && s < winEnd) {
                                if (count == mine.length) {
                                    mine = Arrays.copyOf(mine, count * 2);
                                }
                                mine[count++] = now - s;
                                claimedInWindow.incrementAndGet();
                            }
                        }
                    }
                    if (acks != null) {
                        JsonNode r = post("/jobs/complete", "{\"items\":" + acks + "}", 200);
                        completed.addAndGet(r.path("succeeded").asInt(0));
                    }
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    latencies.add(Arrays.copyOf(mine, count));
                }
            }, "sus-worker-" + w);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        window.set(0, System.nanoTime());
        window.set(1, window.get(0) + (long) (warmupS * 1e9));
        window.set(2, window.get(1) + (long) (seconds * 1e9));
        List<Thread> producerThreads = new ArrayList<>();
        // rate mode: --rate-producers (8) producers, each sending a request every 20 ms or so (at
        // most `chunk` jobs per request), so that a slow answer delays the next request of one
        // producer only
        if (rate > 0) {
            producers = intOpt("rate-producers", 8);
        }
        double perProducer = rate / producers;
        int size = rate > 0 ? (int) Math.max(1, Math.min(chunk, Math.round(perProducer * 0.02))) : chunk;
        long periodNs = rate > 0 ? (long) (size * 1e9 / perProducer) : 0;
        for (int p = 0; p < producers; p++) {
            long offset = periodNs * p / producers;
            Thread t = new Thread(() -> {
                StringBuilder sb = new StringBuilder(size * (payloadBytes + 100));
                try {
                    long t0 = window.get(0);
                    long k = 0;
                    while (producing.get()) {
                        if (rate > 0) {
                            long due = t0 + offset + k++ * periodNs;
                            long wait;
                            while ((wait = due - System.nanoTime()) > 0) {
                                LockSupport.parkNanos(wait);
                            }
                            long late = System.nanoTime() - due;
                            if (due >= window.get(1) && due < window.get(2)) {
                                lateNs.add(late);
                            }
                        } else if (enqueued.get() - claimed.get() >= backlog) {
                            LockSupport.parkNanos(1_000_000L);
                            continue;
                        }
                        long sent = System.nanoTime();
                        sb.setLength(0);
                        sb.append("{\"jobs\":[");
                        for (int i = 0; i < size; i++) {
                            sb.append(i == 0 ? "" : ",").append(itemHead).append(sent).append(itemTail);
                        }
                        sb.append("]}");
                        // counted before the request: the backlog bound then holds with requests in flight
                        enqueued.addAndGet(size);
                        try {
                            JsonNode r = post("/jobs/batch", sb.toString(), 200);
                            int ok = r.path("succeeded").asInt(0);
                            if (answered.addAndGet(ok) >= backlog) {
                                filled.countDown();
                            }
                            if (ok != size) {
                                enqueued.addAndGet(ok - size);
                                enqueueErrors.addAndGet(size - ok);
                            }
                            if (sent >= window.get(1) && sent < window.get(2)) {
                                sentInWindow.addAndGet(ok);
                                enqueueNs.add(System.nanoTime() - sent);
                            }
                        } catch (IOException | IllegalStateException e) {
                            enqueued.addAndGet(-size);
                            enqueueErrors.addAndGet(size);
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "sus-producer-" + p);
            t.setDaemon(true);
            t.start();
            producerThreads.add(t);
        }

        if (!filled.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("sustained: the backlog of " + backlog + " was not enqueued within 120 s");
        }
        if (rate <= 0) {
            window.set(1, System.nanoTime() + (long) (warmupS * 1e9));
            window.set(2, window.get(1) + (long) (seconds * 1e9));
        }
        long winStart = window.get(1);
        long winEnd = window.get(2);
        go.countDown();
        long wait;
        while ((wait = winStart - System.nanoTime()) > 0 && errors.isEmpty()) {
            LockSupport.parkNanos(Math.min(wait, 50_000_000L));
        }
        Cpu cpu0 = Cpu.read(brokerPids, postmaster);
        long done0 = completed.get();
        long backlog0 = enqueued.get() - claimed.get();
        long backlogMin = backlog0;
        long backlogMax = backlog0;
        while ((wait = winEnd - System.nanoTime()) > 0 && errors.isEmpty()) {
            LockSupport.parkNanos(Math.min(wait, 100_000_000L));
            long b = enqueued.get() - claimed.get();
            backlogMin = Math.min(backlogMin, b);
            backlogMax = Math.max(backlogMax, b);
        }
        long done1 = completed.get();
        long backlog1 = enqueued.get() - claimed.get();
        Cpu cpu1 = Cpu.read(brokerPids, postmaster);
        double windowS = (System.nanoTime() - winStart) / 1e9;
        producing.set(false);
        for (Thread t : producerThreads) {
            t.join(70_000);
        }
        if (rate <= 0) {
            // the backlog is drained before the workers stop, so that the next phase on this
            // broker starts without it
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (claimed.get() < enqueued.get() && System.nanoTime() < deadline && errors.isEmpty()) {
                Thread.sleep(10);
            }
        } else {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (claimedInWindow.get() < sentInWindow.get() && System.nanoTime() < deadline && errors.isEmpty()) {
                Thread.sleep(10);
            }
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join(5000);
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("sustained: " + errors.get(0), errors.get(0));
        }
        long[] all;
        synchronized (latencies) {
            all = latencies.stream().flatMapToLong(Arrays::stream).toArray();
        }
        Arrays.sort(all);
        long missing = sentInWindow.get() - all.length;
        double k = (done1 - done0) / 1000.0;
        System.out.printf(Locale.ROOT,
                "RESULT sustained label=%s queue=%s rate=%.1f workers=%d batch=%d producers=%d request_jobs=%d"
                        + " payload_bytes=%d seconds=%.1f jobs=%d jobs_per_s=%.1f offered_jobs_per_s=%.1f"
                        + " backlog_start=%d backlog_end=%d backlog_min=%d backlog_max=%d latency_jobs=%d missing=%d"
                        + " p50_ms=%.2f p99_ms=%.2f max_ms=%.2f enqueue_ms_p50=%.2f enqueue_ms_p99=%.2f"
                        + " enqueue_errors=%d lost=%d claims=%d empty_claims=%d broker_cpu_s=%.2f pg_cpu_s=%.2f"
                        + " broker_cpu_s_per_1k=%.4f pg_cpu_s_per_1k=%.4f driver_cpu_s=%.2f other_cpu_s=%.2f"
                        + " late_ms_p99=%.2f late_ms_max=%.2f%n",
                label, queue, rate, workers, batch, producers, size, payloadBytes, windowS, done1 - done0,
                (done1 - done0) / windowS, sentInWindow.get() / windowS, backlog0, backlog1, backlogMin, backlogMax,
                all.length, Math.max(0, missing), at(all, 50) / 1e6, at(all, 99) / 1e6, at(all, 100) / 1e6,
                pct(enqueueNs, 50) / 1e6, pct(enqueueNs, 99) / 1e6, enqueueErrors.get(), lost.get(), claims.get(),
                emptyClaims.get(), cpu1.brokerS(cpu0), cpu1.pgS(cpu0), k > 0 ? cpu1.brokerS(cpu0) / k : Double.NaN,
                k > 0 ? cpu1.pgS(cpu0) / k : Double.NaN, cpu1.selfS(cpu0), cpu1.otherS(cpu0),
                pct(lateNs, 99) / 1e6, pct(lateNs, 100) / 1e6);
        System.out.flush();
        if (rate > 0 && missing > 0) {
            // not a failure of the run: the offered rate was more than the broker sustained here
            System.err.println("Driver: " + missing + " jobs enqueued in the window were not claimed within 15 s of its end"
                    + " (the offered rate was not sustained)");
        }
    }

    /** Percentile p of sorted values (nearest rank); NaN when empty. */
    static double at(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /**
     * As {@link #readClaim}, and adds each job's payload "t" (the producer's send time) to {@code sent}
     * (when not null).
     */
    static int[] readClaimTimes(byte[] body, StringBuilder ack, List<Long> sent) throws IOException {
        int jobs = 0;
        int ok = 0;
        try (com.fasterxml.jackson.core.JsonParser p = JSON.getFactory().createParser(body)) {
            p.nextToken();
            while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                String field = p.currentName();
                com.fasterxml.jackson.core.JsonToken t = p.nextToken();
                if (t == com.fasterxml.jackson.core.JsonToken.START_ARRAY && ("jobs".equals(field) || "acks".equals(field))) {
                    while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                        String id = null;
                        String lease = null;
                        while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                            String k = p.currentName();
                            com.fasterxml.jackson.core.JsonToken v = p.nextToken();
                            if ("jobs".equals(field) && "id".equals(k)) {
                                id = p.getText();
                            } else if ("jobs".equals(field) && "leaseId".equals(k)) {
                                lease = p.getText();
                            } else if ("jobs".equals(field) && "payload".equals(k)
                                    && v == com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                                while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                                    String pk = p.currentName();
                                    p.nextToken();
                                    if ("t".equals(pk) && sent != null) {
                                        sent.add(p.getLongValue());
                                    } else {
                                        p.skipChildren();
                                    }
                                }
                            } else if ("acks".equals(field) && "status".equals(k)) {
                                ok += p.getIntValue() == 200 ? 1 : 0;
                            } else {
                                p.skipChildren();
                            }
                        }
                        if ("jobs".equals(field)) {
                            ack.append(jobs++ == 0 ? "" : ",").append("{\"id\":\"").append(id)
                                    .append("\",\"leaseId\":\"").append(lease).append("\",\"result\":null}");
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        return new int[] {jobs, ok};
    }

    // ---- backlog ---------------------------------------------------------------------------

    static void backlog() throws Exception {
        int count = intOpt("count", 300);
        int warmup = intOpt("warmup", 50);
        String queue = opts.getOrDefault("queue", "backlog");
        String label = opts.getOrDefault("label", "backlog");
        String claimBody = "{\"workerId\":\"backlog-w\",\"queues\":[\"" + queue + "\"],\"limit\":1,\"leaseSeconds\":60}";
        List<Long> claimNs = new ArrayList<>();
        List<Long> completeNs = new ArrayList<>();
        for (int i = 0; i < warmup + count; i++) {
            long c0 = System.nanoTime();
            JsonNode jobs = post("/claim", claimBody, 200).path("jobs");
            long c1 = System.nanoTime();
            if (jobs.size() != 1) {
                throw new IllegalStateException("claim " + i + " returned " + jobs.size() + " jobs");
            }
            JsonNode j = jobs.get(0);
            post("/jobs/" + j.path("id").asText() + "/complete", "{\"leaseId\":\"" + j.path("leaseId").asText() + "\"}",
                    200);
            long c2 = System.nanoTime();
            if (i >= warmup) {
                claimNs.add(c1 - c0);
                completeNs.add(c2 - c1);
            }
        }
        System.out.printf(Locale.ROOT,
                "RESULT backlog label=%s claims=%d warmup=%d claim_ms_p50=%.3f claim_ms_mean=%.3f claim_ms_p99=%.3f"
                        + " complete_ms_p50=%.3f complete_ms_mean=%.3f%n",
                label, claimNs.size(), warmup, pct(claimNs, 50) / 1e6, mean(claimNs) / 1e6, pct(claimNs, 99) / 1e6,
                pct(completeNs, 50) / 1e6, mean(completeNs) / 1e6);
    }

    // ---- CPU from /proc ----------------------------------------------------------------------

    /** CPU clock ticks of the broker and of all PostgreSQL processes at one moment. */
    record Cpu(long broker, long pg, long self, long busy, long hz) {
        static final long HZ = Long.parseLong(opts.getOrDefault("clk-tck", "100"));

        static Cpu read(long brokerPid, long postmaster) {
            return read(new long[] {brokerPid}, postmaster);
        }

        /** The brokers' CPU is the sum over every broker process given. */
        static Cpu read(long[] brokerPids, long postmaster) {
            long b = 0;
            for (long pid : brokerPids) {
                long[] bs = stat(pid);
                if (bs != null) {
                    b += bs[2] + bs[3];
                }
            }
            long[] me = stat(ProcessHandle.current().pid());
            return new Cpu(b, pgTicks(postmaster), me == null ? 0 : me[2] + me[3], busyTicks(), HZ);
        }

        /** Machine CPU used meanwhile by processes other than the broker, PostgreSQL and this driver. */
        double otherS(Cpu before) {
            return Math.max(0, (busy - before.busy) / (double) hz - brokerS(before) - pgS(before) - selfS(before));
        }

        double selfS(Cpu before) {
            return (self - before.self) / (double) hz;
        }

        double brokerS(Cpu before) {
            return (broker - before.broker) / (double) hz;
        }

        double pgS(Cpu before) {
            return (pg - before.pg) / (double) hz;
        }
    }

    /**
     * utime+stime of the postmaster and of every live child of it, plus the postmaster's
     * cutime+cstime (children that exited and were reaped, e.g. backends of closed connections).
     */
    static long pgTicks(long postmaster) {
        long sum = 0;
        long[] pm = stat(postmaster);
        if (pm != null) {
            sum += pm[2] + pm[3] + pm[4] + pm[5];
        }
        try (var dirs = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long pid = Long.parseLong(name);
                if (pid == postmaster) {
                    continue;
                }
                long[] s = stat(pid);
                if (s != null && s[0] == postmaster) {
                    sum += s[2] + s[3];
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return sum;
    }

    /** Busy CPU ticks of the whole machine: /proc/stat's cpu line without idle and iowait. */
    static long busyTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            return Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                    + Long.parseLong(f[7]) + Long.parseLong(f[8]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** [ppid, unused, utime, stime, cutime, cstime] from /proc/pid/stat, or null if gone. */
    static long[] stat(long pid) {
        try {
            String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
            // f[0] = state (field 3), so field k is f[k - 3]
            return new long[] {Long.parseLong(f[1]), 0, Long.parseLong(f[11]), Long.parseLong(f[12]),
                    Long.parseLong(f[13]), Long.parseLong(f[14])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    // ---- ceiling ------------------------------------------------------------------------------

    /**
     * The sustained ceiling through JDBC, for an engine pgbench cannot reach (SQL Server): each
     * of --clients connections loops job_insert_many of --batch jobs, then job_ack_claim
     * acknowledging its previous claim and claiming --batch more, for --seconds, against a
     * backlog of --backlog pending jobs in --queue, as the pgbench ceiling does. The statements
     * are the broker's own text (StatementCatalog: includes expanded, parameters bound by name,
     * PostgreSQL's generic-plan preamble), run the way the broker runs a single statement
     * (autocommit on PostgreSQL; a committed transaction on SQL Server). One line per client
     * count: RESULT sustained_ceiling runner=jdbc clients=C seconds=S jobs=N jobs_per_s=X
     * pending_end=P [pg_cpu_s=... pg_cpu_s_per_1k=... with --postmaster].
     */
    static final class Ceiling {
        static io.readpast.config.Engine engine;
        static io.readpast.store.StatementCatalog catalog;
        static String jdbc;
        static String queue;

        static void run() throws Exception {
            jdbc = req("jdbc");
            engine = io.readpast.config.Engine.fromJdbcUrl(jdbc);
            if (engine == null) {
                die("--jdbc must be a jdbc:postgresql: or jdbc:sqlserver: URL");
            }
            catalog = io.readpast.store.StatementCatalog.load(engine, opts.get("flavor"));
            queue = opts.getOrDefault("queue", "bench-ceiling");
            int batch = intOpt("batch", 200);
            int backlog = intOpt("backlog", 20000);
            int seconds = intOpt("seconds", 20);
            long postmaster = Long.parseLong(opts.getOrDefault("postmaster", "0"));
            String jobs = itemsJson(batch, intOpt("payload-bytes", 1024));
            for (String cs : opts.getOrDefault("clients", "2 4 8 16").trim().split("\\s+")) {
                int clients = Integer.parseInt(cs);
                try (java.sql.Connection c = connect()) {
                    prepare(c, jobs, backlog, batch);
                }
                AtomicLong acked = new AtomicLong();
                AtomicLong calls = new AtomicLong();
                CountDownLatch ready = new CountDownLatch(clients);
                CountDownLatch go = new CountDownLatch(1);
                long[] window = new long[2];
                long pg0 = postmaster > 0 ? pgTicks(postmaster) : 0;
                Thread timer = new Thread(() -> {
                    try {
                        ready.await();
                        window[0] = System.nanoTime();
                        go.countDown();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                timer.start();
                runThreads(clients, "ceiling", i -> {
                    try (java.sql.Connection c = connect()) {
                        String items = "[]";
                        ready.countDown();
                        go.await();
                        long end = window[0] + seconds * 1_000_000_000L;
                        while (System.nanoTime() < end) {
                            insertMany(c, jobs);
                            int[] n = new int[1];
                            items = ackClaim(c, items, batch, n);
                            acked.addAndGet(n[0]);
                            calls.addAndGet(2);
                        }
                        ackClaim(c, items, 0, new int[1]); // leave nothing leased
                    }
                });
                window[1] = System.nanoTime();
                timer.join();
                long pg1 = postmaster > 0 ? pgTicks(postmaster) : 0;
                double s = (window[1] - window[0]) / 1e9;
                long pending;
                try (java.sql.Connection c = connect()) {
                    pending = count(c, "SELECT COUNT(*) FROM readpast_job WHERE queue = ? AND status = 0");
                }
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                        "RESULT sustained_ceiling runner=jdbc clients=%d seconds=%.1f jobs=%d jobs_per_s=%.1f "
                                + "pending_end=%d statements=%d retries=%d", clients, s, acked.get(), acked.get() / s, pending,
                        calls.get(), RETRIES.getAndSet(0)));
                if (postmaster > 0) {
                    double cpu = (pg1 - pg0) / (double) Cpu.HZ;
                    line.append(String.format(Locale.ROOT, " pg_cpu_s=%.2f pg_cpu_s_per_1k=%.4f", cpu,
                            cpu / (acked.get() / 1000.0)));
                }
                System.out.println(line);
                System.err.println(line);
            }
        }

        static java.sql.Connection connect() throws java.sql.SQLException {
            return java.sql.DriverManager.getConnection(jdbc, opts.getOrDefault("db-user", ""),
                    opts.getOrDefault("db-password", ""));
        }

        /**
         * The queue emptied, its row present, then a backlog of pending jobs, as the broker inserts
         * them; on PostgreSQL then VACUUM ANALYZE, as the pgbench ceiling's fresh database gets:
         * without it, the dead row versions the previous client count left at the head of the
         * claim index slowed the next one fivefold (bench/results/round4-levers.md, section 11).
         */
        static void prepare(java.sql.Connection c, String jobs, int backlog, int batch) throws Exception {
            c.setAutoCommit(true);
            for (String sql : new String[] {"DELETE FROM readpast_job WHERE queue = ?",
                    "DELETE FROM readpast_job_archive WHERE queue = ?"}) {
                try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setString(1, queue);
                    ps.executeUpdate();
                }
            }
            if (count(c, "SELECT COUNT(*) FROM readpast_queue WHERE name = ?") == 0) {
                try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO readpast_queue (name) VALUES (?)")) {
                    ps.setString(1, queue);
                    ps.executeUpdate();
                }
            }
            for (int n = 0; n < backlog; n += batch) {
                insertMany(c, jobs);
            }
            if (engine == io.readpast.config.Engine.POSTGRESQL) {
                c.setAutoCommit(true);
                try (java.sql.Statement s = c.createStatement()) {
                    s.execute("VACUUM ANALYZE readpast_job");
                    s.execute("VACUUM ANALYZE readpast_job_archive");
                }
            }
        }

        static long count(java.sql.Connection c, String sql) throws java.sql.SQLException {
            try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, queue);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }

        static String itemsJson(int batch, int payloadBytes) throws IOException {
            String pad = "x".repeat(Math.max(0, payloadBytes - "{\"t\":1234567890123456789,\"pad\":\"\"}".length()));
            String payload = JSON.writeValueAsString(Map.of("t", 1234567890123456789L, "pad", pad));
            List<Map<String, Object>> items = new ArrayList<>();
            for (int i = 0; i < batch; i++) {
                Map<String, Object> m = new HashMap<>();
                m.put("queue", queue);
                m.put("type", "work");
                m.put("payload", payload);
                m.put("tags", null);
                m.put("idempotency_key", null);
                m.put("priority", 0);
                m.put("max_attempts", null);
                m.put("default_max_attempts", 5);
                m.put("run_at", null);
                m.put("delay_ms", 0);
                m.put("created_by", "bench");
                m.put("webhook_url", null);
                m.put("expires_at", null);
                items.add(m);
            }
            return JSON.writeValueAsString(items);
        }

        static void insertMany(java.sql.Connection c, String jobs) throws Exception {
            run(c, io.readpast.store.Stmt.JOB_INSERT_MANY, Map.of("jobs", jobs), null);
        }

        /** Acknowledges items, claims up to limit; returns the next call's items. n[0]: jobs acked. */
        static String ackClaim(java.sql.Connection c, String items, int limit, int[] n) throws Exception {
            Map<String, Object> p = new HashMap<>();
            p.put("items", items);
            p.put("worker_id", "bench-ceiling");
            p.put("queues", JSON.writeValueAsString(List.of(queue)));
            p.put("limit", limit);
            p.put("lease_seconds", 60);
            p.put("default_lease_seconds", 30);
            p.put("modified_by", "bench");
            p.put("types", null);
            List<Map<String, Object>> next = new ArrayList<>();
            run(c, io.readpast.store.Stmt.JOB_ACK_CLAIM, p, rs -> {
                String acked = rs.getString("acked");
                if (acked != null) {
                    n[0] = JSON.readTree(acked).size();
                }
                long id = rs.getLong("id");
                if (!rs.wasNull()) {
                    Map<String, Object> item = new HashMap<>();
                    item.put("id", id);
                    item.put("lease_id", rs.getString("lease_id"));
                    item.put("result", null);
                    next.add(item);
                }
            });
            return JSON.writeValueAsString(next);
        }

        interface Rows {
            void row(java.sql.ResultSet rs) throws Exception;
        }

        static final AtomicLong RETRIES = new AtomicLong();

        /**
         * One statement as the broker's SqlRunner runs it: bound by name, the first result set
         * read, the rest drained; a deadlock victim or serialization failure is rolled back and
         * run again, as the broker retries a transient failure.
         */
        static void run(java.sql.Connection c, io.readpast.store.Stmt stmt, Map<String, Object> params, Rows rows)
                throws Exception {
            for (int attempt = 1; ; attempt++) {
                try {
                    runOnce(c, stmt, params, rows);
                    return;
                } catch (java.sql.SQLException e) {
                    boolean transientFailure = e.getErrorCode() == 1205 || "40001".equals(e.getSQLState())
                            || "40P01".equals(e.getSQLState());
                    if (!c.getAutoCommit()) {
                        c.rollback();
                    }
                    if (!transientFailure || attempt >= 5) {
                        throw e;
                    }
                    RETRIES.incrementAndGet();
                }
            }
        }

        static void runOnce(java.sql.Connection c, io.readpast.store.Stmt stmt, Map<String, Object> params, Rows rows)
                throws Exception {
            io.readpast.store.SqlStatement s = catalog.get(stmt);
            boolean autocommit = engine == io.readpast.config.Engine.POSTGRESQL;
            if (c.getAutoCommit() != autocommit) {
                c.setAutoCommit(autocommit);
            }
            try (java.sql.PreparedStatement ps = c.prepareStatement(s.jdbcSql())) {
                List<String> order = s.parameterOrder();
                for (int i = 0; i < order.size(); i++) {
                    if (!params.containsKey(order.get(i))) {
                        die(stmt + " needs parameter " + order.get(i) + ", which the ceiling does not know");
                    }
                    Object v = params.get(order.get(i));
                    if (v instanceof Integer k) {
                        ps.setInt(i + 1, k);
                    } else {
                        ps.setString(i + 1, (String) v);
                    }
                }
                boolean haveResultSet = ps.execute();
                int toSkip = s.leadingResults();
                boolean read = false;
                while (true) {
                    if (haveResultSet) {
                        try (java.sql.ResultSet rs = ps.getResultSet()) {
                            if (toSkip > 0) {
                                toSkip--;
                            } else if (!read) {
                                while (rs.next()) {
                                    if (rows != null) {
                                        rows.row(rs);
                                    }
                                }
                                read = true;
                            }
                        }
                    } else if (ps.getUpdateCount() == -1) {
                        break;
                    }
                    haveResultSet = ps.getMoreResults();
                }
            }
            if (!autocommit) {
                c.commit();
            }
        }
    }

    // ---- plumbing ----------------------------------------------------------------------------

    interface Body {
        void run(int index) throws Exception;
    }

    static void runThreads(int count, String name, Body body) throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < count; i++) {
            int index = i;
            Thread t = new Thread(() -> {
                try {
                    body.run(index);
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, name + "-" + i);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException(name + " failed: " + errors.get(0), errors.get(0));
        }
    }

    static HttpRequest request(String path, String body) {
        return HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    static JsonNode post(String path, String body, int expect) throws IOException {
        return JSON.readTree(postRaw(path, body, expect));
    }

    /** POST over this thread's keep-alive connection; the answer's body, when its status is {@code expect}. */
    static byte[] postRaw(String path, String body, int expect) throws IOException {
        Conn c = CONN.get();
        Conn.Reply r;
        try {
            r = c.post(path, body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException e) {
            c.close();
            throw e;
        }
        if (r.status() != expect) {
            throw new IllegalStateException("POST " + path + " -> " + r.status() + ": "
                    + abbreviate(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8)));
        }
        return r.body();
    }

    static final ThreadLocal<Conn> CONN = ThreadLocal.withInitial(Conn::new);

    /**
     * A minimal HTTP/1.1 client: one keep-alive socket per thread, a request written in one go,
     * the answer read by Content-Length or chunked framing. The drain's workers do nothing but
     * claim and acknowledge, so the client should cost as little as it can on the machine the
     * broker and PostgreSQL share (java.net.http costs several times more per request).
     */
    static final class Conn {
        record Reply(int status, byte[] body) {
        }

        private java.net.Socket socket;
        private java.io.BufferedInputStream in;
        private java.io.OutputStream out;
        private final byte[] head;
        private final String host;
        private final int port;

        Conn() {
            URI u = URI.create(base);
            host = u.getHost();
            port = u.getPort();
            head = (" HTTP/1.1\r\nHost: " + host + ":" + port + "\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json\r\nContent-Length: ").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }

        Reply post(String path, byte[] body) throws IOException {
            if (socket == null) {
                socket = new java.net.Socket(host, port);
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(60_000);
                in = new java.io.BufferedInputStream(socket.getInputStream(), 65536);
                out = socket.getOutputStream();
            }
            java.io.ByteArrayOutputStream req = new java.io.ByteArrayOutputStream(body.length + 200);
            req.writeBytes(("POST " + path).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            req.writeBytes(head);
            req.writeBytes((body.length + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            req.writeBytes(body);
            req.writeTo(out);
            out.flush();
            String status = line();
            int code = Integer.parseInt(status.substring(9, 12));
            long length = -1;
            boolean chunked = false;
            boolean closing = false;
            for (String h = line(); !h.isEmpty(); h = line()) {
                int colon = h.indexOf(':');
                String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = h.substring(colon + 1).trim();
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "connection" -> closing = value.equalsIgnoreCase("close");
                    default -> { }
                }
            }
            byte[] payload;
            if (chunked) {
                java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
                for (int size = chunk(); size > 0; size = chunk()) {
                    b.writeBytes(in.readNBytes(size));
                    line();
                }
                while (!line().isEmpty()) {
                    // trailers
                }
                payload = b.toByteArray();
            } else {
                payload = in.readNBytes((int) Math.max(0, length));
            }
            if (closing) {
                close();
            }
            return new Reply(code, payload);
        }

        private int chunk() throws IOException {
            String l = line();
            int semi = l.indexOf(';');
            return Integer.parseInt((semi < 0 ? l : l.substring(0, semi)).trim(), 16);
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder(64);
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\n') {
                    int n = sb.length();
                    return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
                }
                sb.append((char) c);
            }
            throw new java.io.EOFException("connection closed by the broker");
        }

        void close() {
            try {
                if (socket != null) {
                    socket.close();
                }
            } catch (IOException ignored) {
                // gone anyway
            }
            socket = null;
        }
    }

    static double pct(List<Long> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        long[] v;
        synchronized (values) {
            v = values.stream().mapToLong(Long::longValue).toArray();
        }
        Arrays.sort(v);
        int i = (int) Math.ceil(p / 100.0 * v.length) - 1;
        return v[Math.max(0, Math.min(v.length - 1, i))];
    }

    static double mean(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).average().orElse(Double.NaN);
    }

    static String abbreviate(String s) {
        return s.length() > 500 ? s.substring(0, 500) + "..." : s;
    }

    static int intOpt(String key, int dflt) {
        return opts.containsKey(key) ? Integer.parseInt(opts.get(key)) : dflt;
    }

    static String req(String key) {
        String v = opts.get(key);
        if (v == null) {
            die("missing --" + key);
        }
        return v;
    }

    static void die(String msg) {
        System.err.println("Driver: " + msg);
        System.exit(2);
    }
}
