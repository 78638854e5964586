// Conformance agent for the Java library: `java -cp <client jar>:<classes> Agent <mode>`, settings
// from the environment; see clients/conformance/scenarios.json and the Python agent, which this
// one mirrors.
import io.readpast.client.InvalidRequestException;
import io.readpast.client.Job;
import io.readpast.client.JobException;
import io.readpast.client.NewJob;
import io.readpast.client.NotFoundException;
import io.readpast.client.Producer;
import io.readpast.client.ReadpastException;
import io.readpast.client.UnauthorizedException;
import io.readpast.client.Worker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

public class Agent {
    static final String URL = System.getenv("READPAST_URL");
    static final String KEY = System.getenv("READPAST_API_KEY");
    static final String QUEUE = env("RP_QUEUE", "conformance");

    static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? dflt : v;
    }

    static double num(String name, double dflt) {
        return Double.parseDouble(env(name, Double.toString(dflt)));
    }

    static synchronized void out(Object... words) {
        StringBuilder b = new StringBuilder();
        for (Object w : words) {
            b.append(b.length() == 0 ? "" : " ").append(w);
        }
        System.out.println(b);
        System.out.flush();
    }

    static Duration secs(double s) {
        return Duration.ofMillis((long) (s * 1000));
    }

    static Worker.Builder worker(String key) {
        Worker.Builder b = Worker.builder(URL, key).queues(QUEUE)
                .concurrency((int) num("RP_CONCURRENCY", 4))
                .leaseSeconds((int) num("RP_LEASE", 30))
                .waitSeconds((int) num("RP_WAIT", 2))
                .shutdownTimeout(secs(num("RP_SHUTDOWN", 10)))
                .backoff(secs(num("RP_BACKOFF_BASE", 0.5)), Duration.ofSeconds(30));
        if (System.getenv("RP_HEARTBEAT") != null) {
            b.heartbeatInterval(secs(num("RP_HEARTBEAT", 10)));
        }
        if (System.getenv("RP_WORKER_ID") != null) {
            b.workerId(System.getenv("RP_WORKER_ID"));
        }
        return b;
    }

    /** What the suite's always-failing handler throws. */
    static class BoomException extends JobException {
        private static final long serialVersionUID = 1L;

        BoomException(Duration retryAfter) {
            super("always fails", true, retryAfter, null);
        }
    }

    static void register(Worker w) {
        w.handle("noop", job -> {
            out("ran", job.id(), job.type(), job.attempt());
            return Map.of("ok", true);
        });
        w.handle("sleep", job -> {
            out("ran", job.id(), job.type(), job.attempt());
            Map<String, Object> p = job.payloadMap();
            double seconds = p.get("seconds") == null ? 1 : ((Number) p.get("seconds")).doubleValue();
            boolean ignore = Boolean.TRUE.equals(p.get("ignoreCancel"));
            long end = System.nanoTime() + (long) (seconds * 1e9);
            boolean told = false;
            while (true) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return Map.of("slept", seconds);
                }
                try {
                    if (!told && job.awaitCancellation(Duration.ofNanos(left))) {
                        told = true;
                        out("told", job.id(), job.cancelReason());
                        if (!ignore) {
                            throw new InterruptedException("cancelled: " + job.cancelReason());
                        }
                    } else if (told) {
                        Thread.sleep(Math.max(1, left / 1_000_000));
                    }
                } catch (InterruptedException e) {
                    if (!ignore) {
                        throw e;
                    }
                }
            }
        });
        w.handle("fail", job -> {
            out("ran", job.id(), job.type(), job.attempt());
            Object ra = job.payloadMap().get("retryAfter");
            throw new BoomException(ra == null ? null : Duration.ofSeconds(((Number) ra).longValue()));
        });
        w.handle("trace", job -> {
            out("trace", job.id(), job.traceparent() == null ? "-" : job.traceparent());
            return null;
        });
    }

    static int work() {
        Worker w = worker(KEY).build();
        register(w);
        out("ready");
        try {
            w.run();
        } catch (ReadpastException e) {
            out("fatal", e.getClass().getSimpleName(), e.status());
            return 3;
        }
        Worker.Stats s = w.stats();
        out("stats", "completed=" + s.completed(), "failed=" + s.failed(), "released=" + s.released(), "lost=" + s.lost());
        out("exit", "ok");
        return 0;
    }

    static int produce() {
        Producer p = new Producer(URL, KEY);
        Instant now = Instant.now();
        Producer.Enqueued e = p.enqueue(NewJob.of(QUEUE, "full").payload(Map.of("n", 1)).priority(7).tags("a", "b")
                .maxAttempts(4).delay(Duration.ofHours(1)).fairnessKey("tenant-1").groupKey("g-1")
                .timeout(Duration.ofMinutes(5)).retryDelays(Duration.ofSeconds(30)).expiresAt(now.plus(Duration.ofHours(2))).traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
        out("single", e.id(), e.created());
        out("runat", p.enqueue(NewJob.of(QUEUE, "at").runAt(now.plus(Duration.ofHours(1)))).id());
        NewJob idem = NewJob.of(QUEUE, "idem").payload(Map.of("k", 1)).idempotencyKey(QUEUE + "-key").delay(Duration.ofHours(1));
        Producer.Enqueued a = p.enqueue(idem);
        Producer.Enqueued b = p.enqueue(idem);
        out("idem", a.id(), a.created(), b.id(), b.created());
        NewJob uniq = NewJob.of(QUEUE, "uniq").payload(Map.of("u", 1)).uniqueFor(Duration.ofMinutes(10)).delay(Duration.ofHours(1));
        Producer.Enqueued u = p.enqueue(uniq);
        Producer.Enqueued v = p.enqueue(uniq);
        out("unique", u.id(), v.id(), v.created());
        Producer.Enqueued d1 = p.enqueue(NewJob.of(QUEUE, "deb").payload(Map.of("d", 1)).debounce(QUEUE + "-deb", Duration.ofHours(1)));
        Producer.Enqueued d2 = p.enqueue(NewJob.of(QUEUE, "deb").payload(Map.of("d", 2)).debounce(QUEUE + "-deb", Duration.ofHours(1)));
        out("debounce", d1.id(), d1.created(), d2.id(), d2.created());
        List<Producer.ItemResult> items = p.enqueueMany(List.of(
                NewJob.of(QUEUE, "m").payload(Map.of("i", 0)).delay(Duration.ofHours(1)).priority(2),
                NewJob.of("bad queue!", "m"),
                NewJob.of(QUEUE, "m").payload(Map.of("i", 2)).delay(Duration.ofHours(1)).fairnessKey("tenant-2")));
        out("many", items.get(0).status(), items.get(0).id(), items.get(1).status(),
                items.get(1).error().getClass().getSimpleName(), items.get(2).status(), items.get(2).id());
        Producer.Enqueued parent = p.enqueue(NewJob.of(QUEUE, "parent").delay(Duration.ofHours(1)));
        Producer.Enqueued child = p.enqueue(NewJob.of(QUEUE, "child").dependsOnJobs(parent.id()).onParentFailure("run"));
        out("depends", parent.id(), child.id(), child.job().status());
        Producer.Batch batch = p.createBatch(List.of(
                NewJob.of(QUEUE, "in-batch").payload(Map.of("i", 1)).delay(Duration.ofHours(1)),
                NewJob.of(QUEUE, "in-batch").payload(Map.of("i", 2)).delay(Duration.ofHours(1))),
                NewJob.of(QUEUE, "callback").payload(Map.of("album", 7)), "success");
        out("batch", batch.id(), batch.total());
        try {
            p.enqueue(NewJob.of("bad queue!", "x"));
            out("invalid", "none", 0);
        } catch (InvalidRequestException ex) {
            out("invalid", ex.getClass().getSimpleName(), ex.status(), ex.type());
        }
        try {
            p.getJob("999999999");
            out("notfound", "none", 0);
        } catch (NotFoundException ex) {
            out("notfound", ex.getClass().getSimpleName(), ex.status());
        }
        out("exit", "ok");
        return 0;
    }

    static int trace() {
        Producer p = new Producer(URL, KEY);
        String t1 = System.getenv("RP_TRACEPARENT");
        String t2 = System.getenv("RP_TRACEPARENT2");
        out("enqueued", p.enqueue(NewJob.of(QUEUE, "trace").payload(Map.of("n", 1)).traceparent(t1)).id(), t1);
        for (Producer.ItemResult r : p.enqueueMany(List.of(NewJob.of(QUEUE, "trace").payload(Map.of("n", 2)),
                NewJob.of(QUEUE, "trace").payload(Map.of("n", 3))), t2)) {
            out("enqueued", r.id(), t2);
        }
        Worker w = worker(KEY).build();
        AtomicInteger seen = new AtomicInteger();
        w.handle("trace", job -> {
            out("trace", job.id(), job.traceparent() == null ? "-" : job.traceparent());
            if (seen.incrementAndGet() >= 3) {
                w.stop();
            }
            return null;
        });
        w.run();
        out("exit", "ok");
        return 0;
    }

    static int auth() {
        Worker w = worker("rp_wrong_" + ProcessHandle.current().pid()).build();
        w.handle("noop", job -> null);
        try {
            w.run();
            out("worker-auth", "none", 0);
        } catch (UnauthorizedException e) {
            out("worker-auth", e.getClass().getSimpleName(), e.status());
        } catch (ReadpastException e) {
            out("worker-auth", "wrong:" + e.getClass().getSimpleName(), e.status());
        }
        try {
            new Producer(URL, "rp_wrong").enqueue(NewJob.of(QUEUE, "noop"));
            out("producer-auth", "none", 0);
        } catch (UnauthorizedException e) {
            out("producer-auth", e.getClass().getSimpleName(), e.status());
        }
        out("exit", "ok");
        return 0;
    }

    /** Drains RP_BENCH_N no-op jobs (after an untimed round of RP_BENCH_WARMUP) with RP_BENCH_WORKERS workers of RP_CONCURRENCY slots. */
    static int bench() throws Exception {
        int n = (int) num("RP_BENCH_N", 10000);
        int warm = (int) num("RP_BENCH_WARMUP", 5 * n);
        if (warm > 0) {
            drain(QUEUE + "-warm", warm);
        }
        double[] r = drain(QUEUE, n);
        out("RESULT", "client-drain", "lang=java", "jobs=" + (long) r[0], "workers=" + (int) num("RP_BENCH_WORKERS", 4),
                "concurrency=" + (int) num("RP_CONCURRENCY", 500), String.format("seconds=%.3f", r[1]),
                String.format("jobs_per_s=%.1f", r[0] / r[1]), String.format("cpu_s=%.2f", r[2]),
                String.format("cpu_s_per_1k=%.4f", r[2] / r[0] * 1000));
        return 0;
    }

    static double[] drain(String queue, int jobs) throws Exception {
        Producer p = new Producer(URL, KEY);
        for (int start = 0; start < jobs; start += 1000) {
            List<NewJob> chunk = new ArrayList<>();
            for (int i = 0; i < Math.min(1000, jobs - start); i++) {
                chunk.add(NewJob.of(queue, "noop"));
            }
            p.enqueueMany(chunk);
        }
        int conc = (int) num("RP_CONCURRENCY", 500);
        List<Worker> workers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < (int) num("RP_BENCH_WORKERS", 4); i++) {
            Worker w = Worker.builder(URL, KEY).queues(queue).concurrency(conc).leaseSeconds(60).waitSeconds(1)
                    .handleSignals(false).workerId("bench-java-" + ProcessHandle.current().pid() + "-" + i).build();
            w.handle("noop", job -> null);
            workers.add(w);
            threads.add(new Thread(w::run));
        }
        long c0 = cpuNanos();
        long t0 = System.nanoTime();
        threads.forEach(Thread::start);
        long done;
        while ((done = workers.stream().mapToLong(w -> w.stats().completed()).sum()) < jobs) {
            Thread.sleep(2);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double cpu = (cpuNanos() - c0) / 1e9;
        workers.forEach(Worker::stop);
        for (Thread t : threads) {
            t.join();
        }
        return new double[] {done, seconds, cpu};
    }

    static long cpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "work";
        int code = switch (mode) {
            case "work" -> work();
            case "produce" -> produce();
            case "trace" -> trace();
            case "auth" -> auth();
            case "bench" -> bench();
            default -> 2;
        };
        System.exit(code);
    }
}
