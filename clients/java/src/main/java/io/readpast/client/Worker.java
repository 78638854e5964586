package io.readpast.client;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs handlers by job type:
 *
 * <pre>{@code
 * Worker worker = Worker.builder("http://localhost:8080", apiKey).queues("emails").concurrency(8).build();
 * worker.handle("send", job -> Map.of("sent", job.payloadMap().get("to")));
 * worker.run(); // until SIGTERM/SIGINT or stop()
 * }</pre>
 *
 * {@link #run()} claims jobs of the registered types in batches sized to the free handler slots
 * (long-polling an empty queue), heartbeats every held job at a third of the lease, acknowledges
 * finished jobs with the next claim (or in batches while a claim long-polls), and fails those
 * whose handler threw. On SIGTERM/SIGINT or {@link #stop()} it stops claiming, lets running
 * handlers finish within the shutdown timeout, acknowledges them, releases the rest and returns.
 * It throws {@link UnauthorizedException}, {@link ForbiddenException} (or another
 * {@link ReadpastException}) when the broker refuses the claims for good.
 */
public final class Worker {

    /** What a worker did so far. */
    public record Stats(long claimed, long completed, long failed, long released, long lost) {
    }

    /** Settings of a worker. */
    public static final class Builder {
        private final String url;
        private final String apiKey;
        private List<String> queues = List.of();
        private int concurrency = 10;
        private int leaseSeconds = 30;
        private int waitSeconds = 20;
        private int maxBatch;
        private Duration heartbeatInterval;
        private Duration shutdownTimeout = Duration.ofSeconds(30);
        private String workerId;
        private boolean handleSignals = true;
        private Duration backoffBase = Duration.ofMillis(500);
        private Duration backoffCap = Duration.ofSeconds(30);

        private Builder(String url, String apiKey) {
            this.url = url;
            this.apiKey = apiKey;
        }

        /** Queues to claim from (default: every queue the key may use). */
        public Builder queues(String... queues) {
            this.queues = List.of(queues);
            return this;
        }

        /** Handlers at once (10). */
        public Builder concurrency(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("concurrency must be at least 1");
            }
            this.concurrency = n;
            return this;
        }

        /** Lease of each claim and heartbeat (30). */
        public Builder leaseSeconds(int s) {
            this.leaseSeconds = s;
            return this;
        }

        /** Long-poll of an empty claim, 0-30 (20); 0: poll each second. */
        public Builder waitSeconds(int s) {
            this.waitSeconds = s;
            return this;
        }

        /** Largest claim (the concurrency, at most 1000). */
        public Builder maxBatch(int n) {
            this.maxBatch = n;
            return this;
        }

        /** Heartbeat interval (a third of the lease). */
        public Builder heartbeatInterval(Duration d) {
            this.heartbeatInterval = d;
            return this;
        }

        /** How long running handlers may finish after a stop (30 s). */
        public Builder shutdownTimeout(Duration d) {
            this.shutdownTimeout = d;
            return this;
        }

        /** Default java-&lt;host&gt;-&lt;pid&gt;. */
        public Builder workerId(String id) {
            this.workerId = id;
            return this;
        }

        /** Stop on SIGTERM/SIGINT while run() runs (true). */
        public Builder handleSignals(boolean on) {
            this.handleSignals = on;
            return this;
        }

        /** Backoff after a 503 or a connection error: first and longest (500 ms, 30 s); Retry-After wins. */
        public Builder backoff(Duration base, Duration cap) {
            this.backoffBase = base;
            this.backoffCap = cap;
            return this;
        }

        public Worker build() {
            return new Worker(this);
        }
    }

    public static Builder builder(String url, String apiKey) {
        return new Builder(url, apiKey);
    }

    private static final System.Logger LOG = System.getLogger("io.readpast.client");

    private final Http http;
    private final List<String> queues;
    private final int concurrency;
    private final int leaseSeconds;
    private final int waitSeconds;
    private final int maxBatch;
    private final long heartbeatMs;
    private final Duration shutdownTimeout;
    private final String workerId;
    private final boolean handleSignals;
    private final Duration backoffBase;
    private final Duration backoffCap;
    private final Map<String, Handler> handlers = new HashMap<>();
    private Handler fallback;

    private final ReentrantLock lock = new ReentrantLock();
    /** The claim loop (and the shutdown) wait here for free slots: signalled when wakeAtFree slots are free, or on stop. */
    private final Condition slots = lock.newCondition();
    /** The ack flusher waits here: signalled when an ack is added while a claim long-polls. */
    private final Condition flushable = lock.newCondition();
    /** The heartbeat waits here between beats: signalled when run() ends. */
    private final Condition ended = lock.newCondition();
    private int wakeAtFree = 1;
    private final Map<String, Job> held = new HashMap<>();
    private List<Map<String, Object>> acks = new ArrayList<>();
    private int running;
    private boolean inPoll;
    private volatile boolean stopping;
    private long stopAtNanos;
    private volatile boolean done;
    private final java.util.concurrent.CountDownLatch finishedRun = new java.util.concurrent.CountDownLatch(1);
    private long claimed, completed, failed, released, lost;
    private final Set<String> unknownWarned = new HashSet<>();

    private Worker(Builder b) {
        this.http = new Http(b.url, b.apiKey, Duration.ofSeconds(b.waitSeconds + 30L));
        this.queues = b.queues;
        this.concurrency = b.concurrency;
        this.leaseSeconds = b.leaseSeconds;
        this.waitSeconds = b.waitSeconds;
        this.maxBatch = Math.max(1, Math.min(1000, b.maxBatch > 0 ? b.maxBatch : b.concurrency));
        this.heartbeatMs = b.heartbeatInterval != null ? b.heartbeatInterval.toMillis() : Math.max(200, b.leaseSeconds * 1000L / 3);
        this.shutdownTimeout = b.shutdownTimeout;
        this.workerId = b.workerId != null ? b.workerId : "java-" + host() + "-" + ProcessHandle.current().pid();
        this.handleSignals = b.handleSignals;
        this.backoffBase = b.backoffBase;
        this.backoffCap = b.backoffCap;
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    /** Registers the handler of a job type; null handles every type without its own (claims then take every type). */
    public Worker handle(String type, Handler handler) {
        if (type == null) {
            fallback = handler;
        } else {
            handlers.put(type, handler);
        }
        return this;
    }

    public String workerId() {
        return workerId;
    }

    public Stats stats() {
        lock.lock();
        try {
            return new Stats(claimed, completed, failed, released, lost);
        } finally {
            lock.unlock();
        }
    }

    /** Asks run() to stop (thread-safe, idempotent). */
    public void stop() {
        lock.lock();
        try {
            if (!stopping) {
                stopping = true;
                stopAtNanos = System.nanoTime();
            }
            slots.signalAll();
            flushable.signalAll();
            ended.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Stops and waits for run() to have released what it held (a shutdown hook's part). */
    private void stopAndWait() {
        stop();
        try {
            finishedRun.await(shutdownTimeout.toMillis() + 10_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Claims and handles jobs until stop() or SIGTERM/SIGINT; see the class comment. */
    public void run() {
        if (handlers.isEmpty() && fallback == null) {
            throw new IllegalStateException("register a handler first: worker.handle(type, handler)");
        }
        List<Runnable> restore = handleSignals ? Signals.install(this::stop, this::stopAndWait) : List.of();
        Dispatcher pool = new Dispatcher(concurrency, this::execute);
        Thread beat = daemon("readpast-heartbeat", this::heartbeatLoop);
        Thread flush = daemon("readpast-ack-flusher", this::flushLoop);
        ReadpastException fatal = null;
        try {
            claimLoop(pool);
        } catch (ReadpastException e) {
            fatal = e;
            stop();
        } finally {
            shutdown();
            lock.lock();
            try {
                done = true;
                slots.signalAll();
                flushable.signalAll();
                ended.signalAll();
            } finally {
                lock.unlock();
            }
            pool.close();
            finishedRun.countDown();
            beat.interrupt();
            flush.interrupt();
            restore.forEach(Runnable::run);
        }
        if (fatal != null) {
            throw fatal;
        }
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private long backoffMs(int attempt, Duration retryAfter) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        if (retryAfter != null) {
            return (long) (retryAfter.toMillis() * (1 + 0.2 * rnd.nextDouble()));
        }
        double d = Math.min(backoffCap.toMillis(), backoffBase.toMillis() * Math.pow(2, Math.min(attempt, 20)));
        return (long) (d / 2 + rnd.nextDouble() * d / 2);
    }

    /** Sleeps, waking early on stop. */
    private void pause(long ms) {
        lock.lock();
        try {
            long nanos = TimeUnit.MILLISECONDS.toNanos(ms);
            while (!stopping && nanos > 0) {
                nanos = ended.awaitNanos(nanos);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    @SuppressWarnings("unchecked")
    private void claimLoop(Dispatcher pool) {
        List<String> types = fallback != null ? null : new ArrayList<>(new TreeSet<>(handlers.keySet()));
        int want = Math.min(concurrency, maxBatch);
        int failures = 0;
        while (!stopping) {
            int limit;
            int wait;
            List<Map<String, Object>> sending;
            lock.lock();
            try {
                wakeAtFree = 1;
                while (running >= concurrency && !stopping) {
                    slots.awaitUninterruptibly();
                }
                if (stopping) {
                    break;
                }
                if (concurrency - running < want) {
                    long nanos = TimeUnit.MILLISECONDS.toNanos(2); // let a few more slots free up: fewer, larger claims
                    wakeAtFree = want;
                    while (concurrency - running < want && !stopping && nanos > 0) {
                        nanos = slots.awaitNanos(nanos);
                    }
                    wakeAtFree = 1;
                    if (stopping) {
                        break;
                    }
                }
                limit = Math.min(concurrency - running, maxBatch);
                int n = Math.min(1000, acks.size());
                sending = new ArrayList<>(acks.subList(0, n));
                acks = new ArrayList<>(acks.subList(n, acks.size()));
                wait = sending.isEmpty() ? waitSeconds : 0; // acks never wait in a long poll
                inPoll = wait > 0;
                if (inPoll && !acks.isEmpty()) {
                    flushable.signal();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stop();
                break;
            } finally {
                lock.unlock();
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("workerId", workerId);
            body.put("limit", limit);
            body.put("leaseSeconds", leaseSeconds);
            if (wait > 0) {
                body.put("waitSeconds", wait);
            }
            if (!queues.isEmpty()) {
                body.put("queues", queues);
            }
            if (types != null) {
                body.put("types", types);
            }
            if (!sending.isEmpty()) {
                body.put("ack", sending);
            }
            Map<String, Object> answer;
            try {
                answer = http.call("POST", "/claim", body, null, Duration.ofSeconds(wait + 30L)).map();
            } catch (ReadpastException e) {
                lock.lock();
                try {
                    inPoll = false;
                    sending.addAll(acks);
                    acks = sending;
                } finally {
                    lock.unlock();
                }
                if (!e.isTemporary()) {
                    LOG.log(Level.ERROR, "readpast worker {0}: the broker refused the claim: {1}", workerId, e.getMessage());
                    throw e;
                }
                long ms = backoffMs(failures, e.retryAfter());
                if (e.retryAfter() == null) {
                    failures++; // Retry-After sets the pace itself
                }
                LOG.log(Level.WARNING, "readpast worker {0}: claim failed ({1}); retrying in {2} ms", workerId, e.getMessage(), ms);
                pause(ms);
                continue;
            }
            lock.lock();
            try {
                inPoll = false;
            } finally {
                lock.unlock();
            }
            failures = 0;
            if (!sending.isEmpty()) {
                acked(sending, (List<Object>) answer.getOrDefault("acks", List.of()));
            }
            for (Object q : (List<Object>) answer.getOrDefault("unknownQueues", List.of())) {
                if (unknownWarned.add((String) q)) {
                    LOG.log(Level.WARNING, "readpast worker {0}: queue ''{1}'' does not exist (nothing was ever enqueued there)", workerId, q);
                }
            }
            List<Object> jobs = (List<Object>) answer.getOrDefault("jobs", List.of());
            if (jobs.isEmpty()) {
                if (wait == 0 && sending.isEmpty()) {
                    pause(1000); // no long poll: poll each second
                }
                continue;
            }
            List<Job> fresh = new ArrayList<>(jobs.size());
            for (Object j : jobs) {
                fresh.add(new Job((Map<String, Object>) j));
            }
            boolean late;
            lock.lock();
            try {
                claimed += fresh.size();
                late = stopping;
                if (!late) {
                    running += fresh.size();
                    for (Job j : fresh) {
                        held.put(j.id(), j);
                    }
                }
            } finally {
                lock.unlock();
            }
            if (late) {
                release(fresh);
                break;
            }
            pool.submit(fresh);
        }
    }

    private void execute(Job job) {
        Handler h = handlers.getOrDefault(job.type(), fallback);
        Object result = null;
        Throwable error = null;
        job.bind(Thread.currentThread());
        try {
            if (h == null) {
                throw new JobException("no handler for job type '" + job.type() + "'", false, null, null);
            }
            result = h.handle(job);
            if (result != null) {
                Json.write(result); // a result that cannot be sent fails the job, not the acks
            }
        } catch (Throwable t) {
            error = t;
        } finally {
            job.bind(null);
            Thread.interrupted(); // a cancel's interrupt must not reach the next job on this thread
        }
        finished(job, result, error);
    }

    /** "&lt;class&gt;: &lt;message&gt;", as a handler's exception is recorded (at most 10000 characters). */
    public static String errorText(Throwable t) {
        String msg = t.getMessage();
        String text = msg == null || msg.isEmpty() ? t.getClass().getName() : t.getClass().getName() + ": " + msg;
        return text.length() > 10000 ? text.substring(0, 10000) : text;
    }

    private void finished(Job job, Object result, Throwable error) {
        Job.CancelReason reason;
        lock.lock();
        try {
            running--;
            if (concurrency - running >= wakeAtFree) {
                slots.signal();
            }
            if (job.state != Job.State.RUNNING) {
                if (job.state == Job.State.LOST) {
                    held.remove(job.id());
                }
                return;
            }
            reason = job.cancelReason();
            if (error == null && reason == null) {
                job.state = Job.State.DONE;
                Map<String, Object> ack = new LinkedHashMap<>();
                ack.put("id", job.id());
                ack.put("leaseId", job.leaseId());
                if (result != null) {
                    ack.put("result", result);
                }
                acks.add(ack);
                if (inPoll) {
                    flushable.signal();
                }
                return;
            }
            job.state = Job.State.FINISHING;
        } finally {
            lock.unlock();
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("leaseId", job.leaseId());
        if (reason == Job.CancelReason.CANCEL_REQUESTED) { // failing it makes it CANCELLED
            boolean own = error != null && !(error instanceof InterruptedException);
            body.put("error", "cancelled on request" + (own ? " (" + errorText(error) + ")" : ""));
            body.put("retryable", false);
        } else {
            body.put("error", errorText(error));
            body.put("retryable", true);
            if (error instanceof JobException je) {
                body.put("retryable", je.retryable());
                if (je.retryAfter() != null) {
                    body.put("retryAfterSeconds", Math.round(je.retryAfter().toMillis() / 1000.0));
                }
            }
        }
        callWithRetries("POST", "/jobs/" + job.id() + "/fail", body);
        lock.lock();
        try {
            held.remove(job.id());
            failed++;
        } finally {
            lock.unlock();
        }
    }

    private void callWithRetries(String method, String path, Object body) {
        for (int attempt = 0; attempt < 6; attempt++) {
            try {
                http.call(method, path, body);
                return;
            } catch (ReadpastException e) {
                if (e.status() == 404 || e.status() == 409) {
                    if (attempt == 0) {
                        LOG.log(Level.WARNING, "readpast worker {0}: {1}: {2} (lease lost)", workerId, path, e.getMessage());
                    }
                    return; // a repeat whose first try took effect, or a lease that is gone
                }
                if (!e.isTemporary() || attempt == 5) {
                    LOG.log(Level.ERROR, "readpast worker {0}: {1} {2} failed: {3}", workerId, method, path, e.getMessage());
                    return;
                }
                sleepQuietly(backoffMs(attempt, e.retryAfter()));
            }
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @SuppressWarnings("unchecked")
    private void acked(List<Map<String, Object>> items, List<Object> answers) {
        lock.lock();
        try {
            for (int i = 0; i < items.size(); i++) {
                String id = (String) items.get(i).get("id");
                Job job = held.get(id);
                if (job != null && job.state == Job.State.DONE) {
                    job.state = Job.State.ACKED;
                    held.remove(id);
                }
                if (i >= answers.size()) {
                    continue;
                }
                Map<String, Object> a = (Map<String, Object>) answers.get(i);
                int status = ((Number) a.get("status")).intValue();
                if (status == 200) {
                    completed++;
                } else if (status == 404 || status == 409) {
                    lost++;
                    LOG.log(Level.WARNING, "readpast worker {0}: job {1} finished but its lease was lost", workerId, id);
                } else {
                    LOG.log(Level.ERROR, "readpast worker {0}: complete {1} refused: {2}", workerId, id,
                            ReadpastException.of(status, a.get("error"), "", null, null).getMessage());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @SuppressWarnings("unchecked")
    private boolean complete(List<Map<String, Object>> items) {
        try {
            Map<String, Object> answer = http.call("POST", "/jobs/complete", Map.of("items", items)).map();
            acked(items, (List<Object>) answer.getOrDefault("results", List.of()));
            return true;
        } catch (ReadpastException e) {
            LOG.log(Level.WARNING, "readpast worker {0}: complete of {1} jobs failed: {2}", workerId, items.size(), e.getMessage());
            lock.lock();
            try {
                List<Map<String, Object>> back = new ArrayList<>(items);
                back.addAll(acks);
                acks = back;
            } finally {
                lock.unlock();
            }
            return false;
        }
    }

    /** Completes finished jobs while the claim loop waits in a long poll. */
    private void flushLoop() {
        int failures = 0;
        while (true) {
            List<Map<String, Object>> items;
            lock.lock();
            try {
                while (!(inPoll && !acks.isEmpty()) && !done) {
                    flushable.await(200, TimeUnit.MILLISECONDS);
                }
                if (done) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            sleepQuietly(5); // a few more may come
            lock.lock();
            try {
                if (done) {
                    return;
                }
                if (!inPoll || acks.isEmpty()) {
                    continue;
                }
                int n = Math.min(1000, acks.size());
                items = new ArrayList<>(acks.subList(0, n));
                acks = new ArrayList<>(acks.subList(n, acks.size()));
            } finally {
                lock.unlock();
            }
            if (complete(items)) {
                failures = 0;
            } else {
                sleepQuietly(backoffMs(failures++, null));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void heartbeatLoop() {
        long delay = heartbeatMs;
        while (true) {
            lock.lock();
            try {
                long nanos = TimeUnit.MILLISECONDS.toNanos(delay);
                while (!done && nanos > 0) {
                    nanos = ended.awaitNanos(nanos);
                }
                if (done) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            delay = heartbeatMs;
            List<Job> jobs = new ArrayList<>();
            lock.lock();
            try {
                for (Job j : held.values()) {
                    if (j.state == Job.State.RUNNING || j.state == Job.State.FINISHING || j.state == Job.State.DONE) {
                        jobs.add(j);
                    }
                }
            } finally {
                lock.unlock();
            }
            for (int start = 0; start < jobs.size(); start += 1000) {
                List<Job> chunk = jobs.subList(start, Math.min(jobs.size(), start + 1000));
                List<Map<String, Object>> items = new ArrayList<>();
                for (Job j : chunk) {
                    Map<String, Object> it = new LinkedHashMap<>();
                    it.put("id", j.id());
                    it.put("leaseId", j.leaseId());
                    it.put("leaseSeconds", leaseSeconds);
                    Map<String, Object> p = j.progress;
                    if (p != null) {
                        it.put("progress", p);
                        j.progress = null;
                    }
                    items.add(it);
                }
                List<Object> results;
                try {
                    results = (List<Object>) http.call("POST", "/jobs/heartbeat", Map.of("items", items)).map()
                            .getOrDefault("results", List.of());
                } catch (ReadpastException e) {
                    LOG.log(Level.WARNING, "readpast worker {0}: heartbeat failed: {1}", workerId, e.getMessage());
                    delay = Math.min(delay, Math.max(500, e.retryAfter() != null ? e.retryAfter().toMillis() : 1000));
                    continue;
                }
                for (int i = 0; i < chunk.size() && i < results.size(); i++) {
                    Job j = chunk.get(i);
                    Map<String, Object> r = (Map<String, Object>) results.get(i);
                    int status = ((Number) r.get("status")).intValue();
                    if (status == 200 && Boolean.TRUE.equals(r.get("cancelRequested")) && j.state == Job.State.RUNNING
                            && !j.isCancelled()) {
                        LOG.log(Level.INFO, "readpast worker {0}: job {1}: cancel requested", workerId, j.id());
                        j.cancel(Job.CancelReason.CANCEL_REQUESTED);
                    } else if (status == 404 || status == 409) {
                        boolean gone;
                        lock.lock();
                        try {
                            gone = j.state == Job.State.RUNNING;
                            if (gone) {
                                j.state = Job.State.LOST;
                                lost++;
                            }
                        } finally {
                            lock.unlock();
                        }
                        if (gone) {
                            LOG.log(Level.WARNING, "readpast worker {0}: job {1}: lease lost", workerId, j.id());
                            j.cancel(Job.CancelReason.LEASE_LOST);
                        }
                    }
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void release(List<Job> jobs) {
        for (int start = 0; start < jobs.size(); start += 1000) {
            List<Map<String, Object>> items = new ArrayList<>();
            for (Job j : jobs.subList(start, Math.min(jobs.size(), start + 1000))) {
                items.add(Map.of("id", j.id(), "leaseId", j.leaseId()));
            }
            for (int attempt = 0; attempt < 4; attempt++) {
                try {
                    List<Object> results = (List<Object>) http.call("POST", "/jobs/release", Map.of("items", items)).map()
                            .getOrDefault("results", List.of());
                    long ok = results.stream().filter(r -> ((Number) ((Map<String, Object>) r).get("status")).intValue() == 200).count();
                    lock.lock();
                    try {
                        released += ok;
                    } finally {
                        lock.unlock();
                    }
                    break;
                } catch (ReadpastException e) {
                    if (!e.isTemporary() || attempt == 3) {
                        LOG.log(Level.ERROR, "readpast worker {0}: release of {1} jobs failed: {2}", workerId, items.size(), e.getMessage());
                        break;
                    }
                    sleepQuietly(backoffMs(attempt, e.retryAfter()));
                }
            }
        }
    }

    private void shutdown() {
        List<Job> leftovers = new ArrayList<>();
        List<Map<String, Object>> finished;
        lock.lock();
        try {
            long deadline = stopAtNanos + shutdownTimeout.toNanos();
            while (running > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                slots.awaitNanos(left);
            }
            for (Job j : new ArrayList<>(held.values())) {
                if (j.state == Job.State.RUNNING) {
                    j.state = Job.State.RELEASED;
                    held.remove(j.id());
                    leftovers.add(j);
                }
            }
            finished = acks;
            acks = new ArrayList<>();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finished = acks;
        } finally {
            lock.unlock();
        }
        leftovers.forEach(j -> j.cancel(Job.CancelReason.SHUTDOWN));
        for (int start = 0; start < finished.size(); start += 1000) {
            List<Map<String, Object>> chunk = finished.subList(start, Math.min(finished.size(), start + 1000));
            for (int attempt = 0; attempt < 4; attempt++) {
                if (complete(chunk)) {
                    break;
                }
                lock.lock();
                try {
                    acks = new ArrayList<>();
                } finally {
                    lock.unlock();
                }
                sleepQuietly(backoffMs(attempt, null));
            }
        }
        if (!leftovers.isEmpty()) {
            LOG.log(Level.WARNING, "readpast worker {0}: releasing {1} unfinished jobs", workerId, leftovers.size());
            release(leftovers);
        }
        LOG.log(Level.INFO, "readpast worker {0} stopped: {1}", workerId, stats());
    }
}
