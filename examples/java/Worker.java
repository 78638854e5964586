// Readpast example worker: a single-file Java program, no libraries. Run with `java Worker.java`
// (Java 21 or later; it also runs on 17).
//
// Claims batches of jobs, runs a handler for each while a background thread keeps the leases
// alive, and fails each failed job at once; successes are acknowledged with the next claim
// ("ack": one request completes the batch and leases the next). On Ctrl-C / SIGTERM it stops
// claiming, acknowledges what it finished, gives back (releases) every job it still holds, and
// exits 0.
//
// Configuration (environment):
//   READPAST_URL            broker base URL (default http://localhost:8080)
//   READPAST_API_KEY        sent as "Authorization: Bearer <key>" when set
//   READPAST_QUEUES         comma-separated queue names (default: every queue)
//   READPAST_WORKER_ID      default java-<pid>
//   READPAST_BATCH          jobs per claim (default 10)
//   READPAST_LEASE_SECONDS  lease length (default 30); heartbeats every third of it
//   READPAST_EXIT_WHEN_IDLE exit 0 after this many seconds without jobs (unset: run forever)
//
// Stdout gets one line per job: "completed <id> <type>", "failed <id> <type>",
// "released <id> <type>" or "lost <id> <type>". Diagnostics go to stderr. When the broker refuses
// the key (401) or its role or queues (403), it prints the broker's reason and exits 1.

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

public class Worker {

    static final String URL = env("READPAST_URL", "http://localhost:8080").replaceAll("/+$", "");
    static final String API_KEY = env("READPAST_API_KEY", null);
    static final List<String> QUEUES = Arrays.stream(env("READPAST_QUEUES", "").split(","))
            .map(String::trim).filter(q -> !q.isEmpty()).toList();
    static final String WORKER_ID = env("READPAST_WORKER_ID", "java-" + ProcessHandle.current().pid());
    static final int BATCH = Integer.parseInt(env("READPAST_BATCH", "10"));
    static final int LEASE_SECONDS = Integer.parseInt(env("READPAST_LEASE_SECONDS", "30"));
    static final String EXIT_WHEN_IDLE = env("READPAST_EXIT_WHEN_IDLE", null);

    /** Counted down by Ctrl-C / SIGTERM: stop claiming, release what we hold. */
    static final CountDownLatch stop = new CountDownLatch(1);
    /** Job id -> claimed job we have not yet completed, failed or released. */
    static final Map<String, Map<String, Object>> held = new ConcurrentHashMap<>();
    /** Job id -> its acknowledgement, for held jobs that are done: sent with the next claim. */
    static final Map<String, Map<String, Object>> acks = new ConcurrentHashMap<>();
    static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    /** Queue names the broker said do not exist, already reported. */
    static final java.util.Set<Object> unknownWarned = new java.util.HashSet<>();
    /** The JVM's exit status, set by the main loop (the shutdown hook exits with it). */
    static volatile int exitStatus = 0;

    static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v.trim();
    }

    static void log(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static void warn(String line) {
        System.err.println("[" + WORKER_ID + "] " + line);
    }

    static boolean stopping() {
        return stop.getCount() == 0;
    }

    // ---- HTTP --------------------------------------------------------------------------

    /** A non-2xx answer; the detail comes from the problem+json body when there is one. */
    static class ApiError extends Exception {
        final int status;

        ApiError(int status, String detail) {
            super("HTTP " + status + ": " + detail);
            this.status = status;
        }
    }

    /** Sends one JSON request and returns the decoded JSON answer (null for an empty body). */
    static Object call(String method, String path, Object body) throws ApiError, IOException, InterruptedException {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(URL + path))
                .timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(Json.write(body)));
        if (body != null) {
            req.header("Content-Type", "application/json");
        }
        if (API_KEY != null) {
            req.header("Authorization", "Bearer " + API_KEY);
        }
        HttpResponse<String> res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        String text = res.body();
        if (res.statusCode() / 100 != 2) {
            String detail = text;
            try {
                if (Json.parse(text) instanceof Map<?, ?> problem) {
                    Object d = problem.get("detail") != null ? problem.get("detail") : problem.get("title");
                    if (d != null) {
                        detail = d.toString();
                    }
                }
            } catch (IllegalArgumentException notJson) {
                // keep the raw text
            }
            throw new ApiError(res.statusCode(), detail);
        }
        return text.isBlank() ? null : Json.parse(text);
    }

    static Map<String, Object> obj(Object... keyValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    // ---- Job handlers ------------------------------------------------------------------

    /** Thrown by a handler to fail a job; retryable=false sends it straight to DEAD. */
    static class JobFailed extends Exception {
        final boolean retryable;

        JobFailed(String message, boolean retryable) {
            super(message);
            this.retryable = retryable;
        }
    }

    /** The handler stopped early: shutdown was requested or the lease was lost. */
    static class Interrupted extends Exception {
        Interrupted(String why) {
            super(why);
        }
    }

    /** Sleeps, but wakes up early (throwing Interrupted) on shutdown or when the lease is lost. */
    static void pause(double seconds, String jobId) throws Interrupted, InterruptedException {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (true) {
            if (stopping()) {
                throw new Interrupted("shutting down");
            }
            if (!held.containsKey(jobId)) {
                throw new Interrupted("lease lost");
            }
            long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0) {
                return;
            }
            stop.await(Math.min(leftMs, 200), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Does the work for one job and returns its result (any JSON value). {@code traceparent} and
     * {@code tracestate} are the W3C trace context the producer sent with the job (null when it
     * sent none): hand them to your tracing SDK to continue the producer's trace.
     */
    static Object handle(Map<String, Object> job, String traceparent, String tracestate) throws Exception {
        Object payload = job.get("payload");
        switch ((String) job.get("type")) {
            case "echo":
                return obj("echo", payload);
            case "fail":
                throw new JobFailed("this job asked to fail", false);
            case "sleep":
                Object seconds = payload instanceof Map<?, ?> p && p.get("seconds") != null ? p.get("seconds") : 1;
                pause(Double.parseDouble(seconds.toString()), (String) job.get("id"));
                return obj("slept", seconds);
            default:
                return obj("ok", true);
        }
    }

    // ---- Lease bookkeeping -------------------------------------------------------------

    /** Completes, fails or releases a held job and logs "word id type". */
    static void finish(Map<String, Object> job, String action, Map<String, Object> body, String word) {
        String id = (String) job.get("id");
        if (held.remove(id) == null) { // the heartbeat thread already saw the lease go
            log("lost " + id + " " + job.get("type"));
            return;
        }
        Map<String, Object> req = obj("leaseId", job.get("leaseId"));
        req.putAll(body);
        try {
            call("POST", "/jobs/" + id + "/" + action, req);
            log(word + " " + id + " " + job.get("type"));
        } catch (ApiError e) {
            if (e.status == 409) {
                log("lost " + id + " " + job.get("type"));
            } else {
                warn(action + " " + id + " failed: " + e.getMessage());
            }
        } catch (IOException | InterruptedException e) {
            warn(action + " " + id + " failed: " + e);
        }
    }

    /**
     * POSTs the jobs to a batch lease call as {"items": [...]}, 1000 per request, and hands each
     * job of an answered request to {@code answer} with its item's answer and status.
     */
    @SuppressWarnings("unchecked")
    static void perItem(String path, List<Map<String, Object>> jobs,
                        java.util.function.Function<Map<String, Object>, Object> item,
                        PerItem answer) {
        for (int start = 0; start < jobs.size(); start += 1000) {
            List<Map<String, Object>> chunk = jobs.subList(start, Math.min(jobs.size(), start + 1000));
            List<Object> items = new ArrayList<>();
            for (Map<String, Object> job : chunk) {
                items.add(item.apply(job));
            }
            List<Map<String, Object>> answers;
            try {
                answers = (List<Map<String, Object>>) ((Map<?, ?>) call("POST", path, obj("items", items))).get("results");
            } catch (Exception e) {
                warn(path + " of " + chunk.size() + " jobs failed: " + e);
                continue;
            }
            for (int k = 0; k < chunk.size(); k++) {
                answer.accept(chunk.get(k), answers.get(k), ((Number) answers.get(k).get("status")).intValue());
            }
        }
    }

    interface PerItem {
        void accept(Map<String, Object> job, Map<String, Object> answer, int status);
    }

    /**
     * Runs every leaseSeconds/3 on a background thread: extends the lease of every held job, in
     * one POST /jobs/heartbeat per 1000 jobs (the broker answers each item on its own).
     */
    static void heartbeatAll() {
        perItem("/jobs/heartbeat", List.copyOf(held.values()),
                job -> obj("id", job.get("id"), "leaseId", job.get("leaseId"), "leaseSeconds", LEASE_SECONDS),
                (job, answer, status) -> {
                    String id = (String) job.get("id");
                    if (status == 200) {
                        return;
                    }
                    if (status != 404 && status != 409) {
                        warn("heartbeat " + id + " failed: " + answer.get("error"));
                    } else if (held.remove(id, job)) { // lost after we finished the job ourselves is not news
                        if (acks.remove(id) != null) { // done, but the lease went before the ack
                            log("lost " + id + " " + job.get("type"));
                        } else {
                            warn("lease lost for job " + id + "; stopping work on it");
                        }
                    }
                });
    }

    /** Gives held jobs back unworked (no attempt spent), in one POST /jobs/release per 1000. */
    static void releaseAll(List<Map<String, Object>> jobs) {
        List<Map<String, Object>> mine = new ArrayList<>();
        for (Map<String, Object> job : jobs) {
            if (held.remove((String) job.get("id")) != null) {
                mine.add(job);
            } else { // the heartbeat thread already saw the lease go
                log("lost " + job.get("id") + " " + job.get("type"));
            }
        }
        perItem("/jobs/release", mine, job -> obj("id", job.get("id"), "leaseId", job.get("leaseId")),
                (job, answer, status) -> {
                    if (status == 200) {
                        log("released " + job.get("id") + " " + job.get("type"));
                    } else if (status == 404 || status == 409) {
                        log("lost " + job.get("id") + " " + job.get("type"));
                    } else {
                        warn("release " + job.get("id") + " failed: " + answer.get("error"));
                    }
                });
    }

    static void process(Map<String, Object> job) {
        Object result;
        try {
            result = handle(job, (String) job.get("traceparent"), (String) job.get("tracestate"));
        } catch (Interrupted e) {
            if (stopping()) {
                finish(job, "release", obj(), "released"); // give it back unworked
            } else {
                log("lost " + job.get("id") + " " + job.get("type"));
            }
            return;
        } catch (JobFailed e) {
            finish(job, "fail", obj("error", e.getMessage(), "retryable", e.retryable), "failed");
            return;
        } catch (Exception e) { // a bug in a handler: fail the job, but let it be retried
            finish(job, "fail", obj("error", e.toString(), "retryable", true), "failed");
            return;
        }
        String id = (String) job.get("id");
        acks.put(id, obj("id", id, "leaseId", job.get("leaseId"), "result", result)); // still held until acked
        if (!held.containsKey(id) && acks.remove(id) != null) { // the heartbeat thread saw the lease go
            log("lost " + id + " " + job.get("type"));
        }
    }

    /** Logs the broker's answer for each acknowledged job and forgets the job. */
    @SuppressWarnings("unchecked")
    static void acknowledged(List<Map<String, Object>> done, Object answers) {
        List<Map<String, Object>> list = answers == null ? List.of() : (List<Map<String, Object>>) answers;
        for (int i = 0; i < done.size(); i++) {
            String id = (String) done.get(i).get("id");
            acks.remove(id);
            Map<String, Object> job = held.remove(id);
            Object type = job == null ? "?" : job.get("type");
            Object status = i < list.size() ? list.get(i).get("status") : null;
            if (status instanceof Number n && n.intValue() == 200) {
                log("completed " + id + " " + type);
            } else if (status instanceof Number n && (n.intValue() == 404 || n.intValue() == 409)) {
                log("lost " + id + " " + type);
            } else {
                warn("complete " + id + " failed: " + (i < list.size() ? list.get(i).get("error") : "no answer"));
            }
        }
    }

    /** Acknowledges the finished jobs and claims the next batch, in one request. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> claim() throws Exception {
        List<Map<String, Object>> done = List.copyOf(acks.values());
        Map<String, Object> body = obj("workerId", WORKER_ID, "limit", BATCH, "leaseSeconds", LEASE_SECONDS);
        if (!QUEUES.isEmpty()) {
            body.put("queues", QUEUES);
        }
        if (!done.isEmpty()) {
            body.put("ack", done);
        }
        Map<String, Object> answer = (Map<String, Object>) call("POST", "/claim", body);
        if (answer.get("unknownQueues") instanceof List<?> unknown) { // listed only in empty answers
            for (Object queue : unknown) {
                if (unknownWarned.add(queue)) {
                    warn("queue '" + queue + "' does not exist on the broker (nothing was ever enqueued there): "
                            + "check READPAST_QUEUES");
                }
            }
        }
        acknowledged(done, answer.get("acks"));
        return (List<Map<String, Object>>) answer.get("jobs");
    }

    // ---- Main loop ---------------------------------------------------------------------

    public static void main(String[] args) throws Exception {
        // Ctrl-C / SIGTERM run this hook: it asks the main loop to stop, waits for it to release
        // the held jobs, then ends the JVM with the loop's status, 0 after a signal (a signal exit
        // would otherwise be 130/143). It also runs when main returns, and exits with its status.
        Thread mainThread = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            try {
                mainThread.join(60_000);
            } catch (InterruptedException ignored) {
                // exit anyway
            }
            Runtime.getRuntime().halt(exitStatus);
        }));

        ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "heartbeat");
            t.setDaemon(true);
            return t;
        });
        long interval = Math.max(LEASE_SECONDS * 1000L / 3, 1000);
        heartbeats.scheduleWithFixedDelay(Worker::heartbeatAll, interval, interval, TimeUnit.MILLISECONDS);
        warn("worker " + WORKER_ID + " polling " + URL + " queues=" + (QUEUES.isEmpty() ? "all" : QUEUES));

        long idleLimitMs = EXIT_WHEN_IDLE == null ? -1 : (long) (Double.parseDouble(EXIT_WHEN_IDLE) * 1000);
        long lastJob = System.currentTimeMillis();
        long idleMs = 500;
        while (!stopping()) {
            List<Map<String, Object>> jobs = List.of();
            try {
                jobs = claim();
            } catch (ApiError e) {
                if (e.status == 401 || e.status == 403) { // retrying cannot help: wrong key or no worker role
                    warn("the broker refused this worker: " + e.getMessage()
                            + " (set READPAST_API_KEY to a key with the worker role)");
                    exitStatus = 1;
                    break;
                }
                warn("claim failed: " + e.getMessage());
            } catch (Exception e) {
                warn("claim failed: " + e.getMessage());
            }
            if (jobs.isEmpty()) {
                if (idleLimitMs >= 0 && System.currentTimeMillis() - lastJob >= idleLimitMs) {
                    warn("idle for " + EXIT_WHEN_IDLE + "s: exiting");
                    break;
                }
                stop.await(idleMs, TimeUnit.MILLISECONDS); // nothing to do: back off (0.5 s up to 2 s)
                idleMs = Math.min(idleMs * 3 / 2, 2000);
                continue;
            }
            idleMs = 500;
            for (Map<String, Object> job : jobs) {
                held.put((String) job.get("id"), job);
            }
            for (Map<String, Object> job : jobs) {
                if (stopping()) {
                    break;
                }
                process(job);
            }
            lastJob = System.currentTimeMillis();
        }

        // Shutdown: acknowledge what is done, give back the rest without spending an attempt.
        List<Map<String, Object>> done = List.copyOf(acks.values());
        if (!done.isEmpty()) {
            try {
                acknowledged(done, ((Map<?, ?>) call("POST", "/jobs/complete", obj("items", done))).get("results"));
            } catch (Exception e) {
                warn("complete failed: " + e);
            }
        }
        List<Map<String, Object>> leftovers = new ArrayList<>();
        for (Map<String, Object> job : List.copyOf(held.values())) {
            if (!acks.containsKey((String) job.get("id"))) {
                leftovers.add(job);
            }
        }
        releaseAll(leftovers);
        heartbeats.shutdownNow();
        // Returning ends the JVM; the shutdown hook then finds this thread done and exits with exitStatus.
    }

    // ---- A tiny JSON reader/writer (just enough for the broker's answers) ----------------

    /**
     * Objects become LinkedHashMap, arrays ArrayList, numbers BigDecimal (so they round-trip
     * exactly), plus String, Boolean and null.
     */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Json p = new Json(text);
            Object v = p.value();
            p.ws();
            if (p.i != text.length()) {
                throw p.error("trailing characters");
            }
            return v;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("Bad JSON at " + i + ": " + what);
        }

        private void ws() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        private void expect(char c) {
            ws();
            if (i >= s.length() || s.charAt(i) != c) {
                throw error("expected '" + c + "'");
            }
            i++;
        }

        private boolean literal(String word) {
            if (s.startsWith(word, i)) {
                i += word.length();
                return true;
            }
            return false;
        }

        private Object value() {
            ws();
            if (i >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                ws();
                if (i < s.length() && s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    ws();
                    String key = string();
                    expect(':');
                    m.put(key, value());
                    ws();
                    if (i < s.length() && s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect('}');
                        return m;
                    }
                }
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                i++;
                ws();
                if (i < s.length() && s.charAt(i) == ']') {
                    i++;
                    return list;
                }
                while (true) {
                    list.add(value());
                    ws();
                    if (i < s.length() && s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect(']');
                        return list;
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            if (literal("true")) {
                return Boolean.TRUE;
            }
            if (literal("false")) {
                return Boolean.FALSE;
            }
            if (literal("null")) {
                return null;
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            try {
                return new BigDecimal(s.substring(start, i));
            } catch (NumberFormatException e) {
                i = start;
                throw error("unexpected character '" + c + "'");
            }
        }

        private String string() {
            if (i >= s.length() || s.charAt(i) != '"') {
                throw error("expected a string");
            }
            i++;
            StringBuilder b = new StringBuilder();
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    break;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw error("bad \\u escape");
                        }
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> b.append(e); // \" \\ \/
                }
            }
            throw error("unterminated string");
        }

        static String write(Object v) {
            StringBuilder b = new StringBuilder();
            write(v, b);
            return b.toString();
        }

        private static void write(Object v, StringBuilder b) {
            if (v == null) {
                b.append("null");
            } else if (v instanceof String str) {
                b.append('"');
                for (char c : str.toCharArray()) {
                    switch (c) {
                        case '"' -> b.append("\\\"");
                        case '\\' -> b.append("\\\\");
                        case '\n' -> b.append("\\n");
                        case '\r' -> b.append("\\r");
                        case '\t' -> b.append("\\t");
                        default -> {
                            if (c < 0x20) {
                                b.append(String.format("\\u%04x", (int) c));
                            } else {
                                b.append(c);
                            }
                        }
                    }
                }
                b.append('"');
            } else if (v instanceof Map<?, ?> m) {
                b.append('{');
                String sep = "";
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    b.append(sep);
                    write(e.getKey().toString(), b);
                    b.append(':');
                    write(e.getValue(), b);
                    sep = ",";
                }
                b.append('}');
            } else if (v instanceof List<?> list) {
                b.append('[');
                String sep = "";
                for (Object o : list) {
                    b.append(sep);
                    write(o, b);
                    sep = ",";
                }
                b.append(']');
            } else {
                b.append(v); // Number or Boolean
            }
        }
    }
}
