package driver;

import static driver.kit.Http.post;
import static driver.kit.Http.postRaw;
import static driver.kit.Opts.intOpt;
import static driver.kit.Stats.mean;
import static driver.kit.Stats.pct;

import com.fasterxml.jackson.databind.JsonNode;
import driver.kit.Opts;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Mode "latency": enqueue-to-claim latency at a light fixed rate. W long-polling workers
 * (waitSeconds 30, limit 1, each job acknowledged with the next claim) and one producer offering
 * a fixed rate (POST /jobs one at a time, open loop); a job's latency runs from System.nanoTime
 * just before its enqueue request is sent to the claim response that carries it (same process).
 *
 * Options: --workers (16), --rate (50), --seconds (20), --warmup (2 s, untimed), --warmup-rate
 * (five times the rate), --queue. Output: RESULT latency.
 */
final class Latency {
    private Latency() {
    }

    static void run() throws Exception {
        int workers = intOpt("workers", 16);
        double rate = Opts.doubleOpt("rate", "50");
        double seconds = Opts.doubleOpt("seconds", "20");
        double warmup = Opts.doubleOpt("warmup", "2");
        String queue = Opts.get("queue", "lat");
        // Untimed warm-up: `warmup` seconds at `warmup-rate` (default five times the rate), so that
        // the broker's single-enqueue and long-poll paths and this client are compiled (a broker
        // at 50 jobs/s for an hour is); then, once every warm-up job was claimed and after a
        // short pause, `seconds` at `rate`.
        double warmRate = Opts.doubleOpt("warmup-rate", String.valueOf(rate * 5));
        int warm = (int) Math.round(warmRate * warmup);
        int total = warm + (int) Math.round(rate * seconds);
        long periodNs = (long) (1e9 / rate);
        long warmPeriodNs = (long) (1e9 / warmRate);
        // written by the producer, read by the workers: an atomic array for visibility
        AtomicLongArray sentAt = new AtomicLongArray(total);
        long[] latency = new long[total];
        Arrays.fill(latency, -1);
        AtomicInteger received = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Long> enqueueNs = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger enqueueErrors = new AtomicInteger();

        CountDownLatch ready = new CountDownLatch(workers);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
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
}
