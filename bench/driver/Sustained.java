package driver;

import static driver.kit.Http.post;
import static driver.kit.Http.postRaw;
import static driver.kit.Opts.intOpt;
import static driver.kit.Opts.req;
import static driver.kit.Stats.at;
import static driver.kit.Stats.pct;

import com.fasterxml.jackson.databind.JsonNode;
import driver.kit.Claims;
import driver.kit.Cpu;
import driver.kit.Jdbc;
import driver.kit.Opts;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Mode "sustained": producers and workers at once, for --warmup-seconds (untimed) and then
 * --seconds (timed). Every job carries a payload of about --payload-bytes bytes of JSON with the
 * producer's System.nanoTime at the send of its enqueue request ("t"), so a worker's claim gives
 * the job's enqueue-to-claim latency (same process, same clock).
 *
 * --rate 0: producers first enqueue --backlog jobs, then the workers start and the producers keep
 * the backlog (enqueued, not yet claimed) at about --backlog jobs, so the workers never wait: the
 * completions per second over the window are the sustained maximum (its latency is the backlog's
 * wait). --rate R: --rate-producers producers offer R jobs/s in all, open loop, in requests of up
 * to --chunk jobs (POST /jobs/batch); a job's "t" is when its request was sent, and how late each
 * request was sent after its due time is reported beside (late_ms: a producer waiting on slow
 * answers), and so is the latency counted from the request's due time instead (p99_due_ms: what a
 * producer that never falls behind would have seen); after the window the workers go on until
 * every job sent in it was claimed (at most 15 s).
 *
 * Workers: POST /claim with limit --batch, waitSeconds 1, each batch acknowledged with the
 * worker's next claim. --broker-pid may list several pids (comma-separated): their CPU is summed.
 * With --pgss-url/--pgss-db, the database's statements over the window (pg_stat_statements).
 *
 * Output: RESULT sustained (and STATEMENT lines with --pgss-url).
 */
final class Sustained {
    private Sustained() {
    }

    static void run() throws Exception {
        int workers = intOpt("workers", 16);
        int batch = intOpt("batch", 200);
        int producers = intOpt("producers", 3);
        int chunk = intOpt("chunk", 500);
        int payloadBytes = intOpt("payload-bytes", 1024);
        int backlog = intOpt("backlog", 20000);
        double rate = Opts.doubleOpt("rate", "0");
        double seconds = Opts.doubleOpt("seconds", "60");
        double warmupS = Opts.doubleOpt("warmup-seconds", "10");
        String queue = Opts.get("queue", "sustained");
        String label = Opts.get("label", rate > 0 ? "rate" : "max");
        long[] brokerPids = Arrays.stream(req("broker-pid").split(",")).mapToLong(Long::parseLong).toArray();
        long postmaster = Long.parseLong(req("postmaster"));
        Jdbc.Statements statements = Jdbc.Statements.open();

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
        AtomicLongArray window = new AtomicLongArray(3);
        CountDownLatch go = new CountDownLatch(1);
        List<long[]> latencies = Collections.synchronizedList(new ArrayList<>());
        // rate mode: each job's latency counted from its request's due time instead of its send
        List<long[]> dueLatencies = Collections.synchronizedList(new ArrayList<>());
        // rate mode: a request's send time ("t" of its jobs) -> how late it was sent after its due time
        Map<Long, Long> lateBySent = new ConcurrentHashMap<>();
        List<Long> enqueueNs = Collections.synchronizedList(new ArrayList<>());
        // rate mode: how late each request was sent after its due time (the producers keeping up)
        List<Long> lateNs = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();

        for (int w = 0; w < workers; w++) {
            int index = w;
            Thread t = new Thread(() -> {
                String claimBody = "{\"workerId\":\"sus-w" + index + "\",\"queues\":[\"" + queue + "\"],\"limit\":"
                        + batch + ",\"leaseSeconds\":60,\"waitSeconds\":1";
                long[] mine = new long[1 << 16];
                long[] mineDue = new long[rate > 0 ? 1 << 16 : 0];
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
                        int[] got = Claims.readTimes(answer, sb, sent);
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
                                    if (rate > 0) {
                                        mineDue = Arrays.copyOf(mineDue, count * 2);
                                    }
                                }
                                if (rate > 0) {
                                    mineDue[count] = now - s + lateBySent.getOrDefault(s, 0L);
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
                    dueLatencies.add(Arrays.copyOf(mineDue, Math.min(count, mineDue.length)));
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
                        long late = 0;
                        if (rate > 0) {
                            long due = t0 + offset + k++ * periodNs;
                            long wait;
                            while ((wait = due - System.nanoTime()) > 0) {
                                LockSupport.parkNanos(wait);
                            }
                            late = System.nanoTime() - due;
                            if (due >= window.get(1) && due < window.get(2)) {
                                lateNs.add(late);
                            }
                        } else if (enqueued.get() - claimed.get() >= backlog) {
                            LockSupport.parkNanos(1_000_000L);
                            continue;
                        }
                        long sent = System.nanoTime();
                        if (rate > 0 && sent >= window.get(1) && sent < window.get(2)) {
                            lateBySent.put(sent, late);
                        }
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
        if (statements != null) {
            statements.reset();
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
        String statementFields = statements != null ? statements.report(label, done1 - done0) : "";
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
        long[] allDue;
        synchronized (latencies) {
            all = latencies.stream().flatMapToLong(Arrays::stream).toArray();
        }
        synchronized (dueLatencies) {
            allDue = dueLatencies.stream().flatMapToLong(Arrays::stream).toArray();
        }
        Arrays.sort(all);
        Arrays.sort(allDue);
        long missing = sentInWindow.get() - all.length;
        double k = (done1 - done0) / 1000.0;
        System.out.printf(Locale.ROOT,
                "RESULT sustained label=%s queue=%s rate=%.1f workers=%d batch=%d producers=%d request_jobs=%d"
                        + " payload_bytes=%d seconds=%.1f jobs=%d jobs_per_s=%.1f offered_jobs_per_s=%.1f"
                        + " backlog_start=%d backlog_end=%d backlog_min=%d backlog_max=%d latency_jobs=%d missing=%d"
                        + " p50_ms=%.2f p99_ms=%.2f max_ms=%.2f enqueue_ms_p50=%.2f enqueue_ms_p99=%.2f"
                        + " enqueue_errors=%d lost=%d claims=%d empty_claims=%d broker_cpu_s=%.2f pg_cpu_s=%.2f"
                        + " broker_cpu_s_per_1k=%.4f pg_cpu_s_per_1k=%.4f driver_cpu_s=%.2f other_cpu_s=%.2f"
                        + " late_ms_p99=%.2f late_ms_max=%.2f p99_due_ms=%.2f%s%n",
                label, queue, rate, workers, batch, producers, size, payloadBytes, windowS, done1 - done0,
                (done1 - done0) / windowS, sentInWindow.get() / windowS, backlog0, backlog1, backlogMin, backlogMax,
                all.length, Math.max(0, missing), at(all, 50) / 1e6, at(all, 99) / 1e6, at(all, 100) / 1e6,
                pct(enqueueNs, 50) / 1e6, pct(enqueueNs, 99) / 1e6, enqueueErrors.get(), lost.get(), claims.get(),
                emptyClaims.get(), cpu1.brokerS(cpu0), cpu1.pgS(cpu0), k > 0 ? cpu1.brokerS(cpu0) / k : Double.NaN,
                k > 0 ? cpu1.pgS(cpu0) / k : Double.NaN, cpu1.selfS(cpu0), cpu1.otherS(cpu0),
                pct(lateNs, 99) / 1e6, pct(lateNs, 100) / 1e6, at(allDue, 99) / 1e6, statementFields);
        System.out.flush();
        if (statements != null) {
            statements.close();
        }
        if (rate > 0 && missing > 0) {
            // not a failure of the run: the offered rate was more than the broker sustained here
            System.err.println("Driver: " + missing + " jobs enqueued in the window were not claimed within 15 s of its end"
                    + " (the offered rate was not sustained)");
        }
    }
}
