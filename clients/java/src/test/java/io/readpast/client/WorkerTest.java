package io.readpast.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The worker and producer against a fake broker (com.sun.net.httpserver on loopback). */
class WorkerTest {

    final List<Object[]> seen = Collections.synchronizedList(new ArrayList<>());
    final List<Object> jobs = Collections.synchronizedList(new ArrayList<>());
    final Set<String> cancel = ConcurrentHashMap.newKeySet();
    volatile int status;
    HttpServer server;
    String url;

    WorkerTest() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            String raw = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            @SuppressWarnings("unchecked")
            Map<String, Object> body = raw.isEmpty() ? Map.of() : (Map<String, Object>) Json.parse(raw);
            String path = ex.getRequestURI().getPath();
            seen.add(new Object[] {path, body});
            int code = 200;
            Object answer;
            if (status != 0) {
                code = status;
                answer = Map.of("type", "urn:readpast:problem:unauthorized", "status", status, "detail", "The API key was not accepted.");
            } else if (path.equals("/claim")) {
                int limit = ((Number) body.get("limit")).intValue();
                List<Object> take = new ArrayList<>();
                synchronized (jobs) {
                    while (take.size() < limit && !jobs.isEmpty()) {
                        take.add(jobs.remove(0));
                    }
                }
                answer = Map.of("jobs", take, "acks", items(body.get("ack")));
            } else if (path.equals("/jobs/complete") || path.equals("/jobs/release") || path.equals("/jobs/heartbeat")) {
                answer = Map.of("results", items(body.get("items")));
            } else if (path.equals("/jobs")) {
                code = 201;
                Map<String, Object> j = new LinkedHashMap<>(body);
                j.put("id", "1");
                j.put("status", "PENDING");
                answer = j;
            } else {
                answer = Map.of("id", "1", "status", "DEAD");
            }
            byte[] out = Json.write(answer).getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", code < 300 ? "application/json" : "application/problem+json");
            ex.sendResponseHeaders(code, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        server.start();
        url = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @SuppressWarnings("unchecked")
    List<Object> items(Object list) {
        List<Object> out = new ArrayList<>();
        if (list instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) {
                String id = (String) ((Map<String, Object>) l.get(i)).get("id");
                out.add(Map.of("index", i, "id", id, "status", 200, "cancelRequested", cancel.contains(id)));
            }
        }
        return out;
    }

    static Map<String, Object> job(int i) {
        return Map.of("id", Integer.toString(i), "queue", "q", "type", "t", "payload", Map.of("i", i), "attempt", 1,
                "maxAttempts", 3, "leaseId", "lease-" + i, "traceparent", "00-abc-def-01");
    }

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> bodies(String path) {
        List<Map<String, Object>> out = new ArrayList<>();
        synchronized (seen) {
            for (Object[] s : seen) {
                if (s[0].equals(path)) {
                    out.add((Map<String, Object>) s[1]);
                }
            }
        }
        return out;
    }

    static void runUntil(Worker w, BooleanSupplier cond) throws InterruptedException {
        Thread t = new Thread(w::run);
        t.start();
        long end = System.nanoTime() + 10_000_000_000L;
        while (!cond.getAsBoolean() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        w.stop();
        t.join(10_000);
        assertFalse(t.isAlive());
    }

    @AfterEach
    void close() {
        server.stop(0);
    }

    @Test
    void handlesAcksAndPassesTheTraceparent() throws Exception {
        for (int i = 1; i <= 25; i++) {
            jobs.add(job(i));
        }
        Worker w = Worker.builder(url, "k").concurrency(5).waitSeconds(1).handleSignals(false).build();
        List<String> tps = Collections.synchronizedList(new ArrayList<>());
        w.handle("t", job -> {
            tps.add(job.traceparent());
            return Map.of("i", job.payloadMap().get("i"));
        });
        runUntil(w, () -> w.stats().completed() == 25);
        assertEquals(25, tps.size());
        assertTrue(tps.stream().allMatch("00-abc-def-01"::equals));
        assertTrue(bodies("/claim").stream().allMatch(b -> ((Number) b.get("limit")).intValue() <= 5));
        assertEquals(List.of("t"), bodies("/claim").get(0).get("types"));
    }

    static class Oops extends JobException {
        private static final long serialVersionUID = 1L;

        Oops() {
            super("bad input", false, Duration.ofSeconds(4), null);
        }
    }

    @Test
    void failureRecordsClassMessageAndRetry() throws Exception {
        jobs.add(job(1));
        Worker w = Worker.builder(url, "k").concurrency(1).waitSeconds(1).handleSignals(false).build();
        w.handle("t", job -> {
            throw new Oops();
        });
        runUntil(w, () -> w.stats().failed() == 1);
        Map<String, Object> fail = bodies("/jobs/1/fail").get(0);
        assertEquals("io.readpast.client.WorkerTest$Oops: bad input", fail.get("error"));
        assertEquals(false, fail.get("retryable"));
        assertEquals(4L, fail.get("retryAfterSeconds"));
    }

    @Test
    void cancelRequestedAndShutdownReachTheHandlers() throws Exception {
        jobs.add(job(1));
        jobs.add(job(2));
        cancel.add("1");
        Map<String, Job.CancelReason> reasons = new ConcurrentHashMap<>();
        Worker w = Worker.builder(url, "k").concurrency(2).waitSeconds(1).heartbeatInterval(Duration.ofMillis(100))
                .shutdownTimeout(Duration.ofMillis(300)).handleSignals(false).build();
        w.handle("t", job -> {
            job.awaitCancellation(Duration.ofSeconds(10));
            reasons.put(job.id(), job.cancelReason());
            if (job.id().equals("1")) {
                throw new InterruptedException("stopped");
            }
            Thread.sleep(5_000); // ignores the shutdown: released anyway
            return null;
        });
        runUntil(w, () -> reasons.containsKey("1"));
        assertEquals(Job.CancelReason.CANCEL_REQUESTED, reasons.get("1"));
        assertEquals(Job.CancelReason.SHUTDOWN, reasons.get("2"));
        assertEquals(false, bodies("/jobs/1/fail").get(0).get("retryable"));
        assertEquals(List.of(Map.of("id", "2", "leaseId", "lease-2")), bodies("/jobs/release").get(0).get("items"));
    }

    @Test
    void wrongKeyThrowsUnauthorized() {
        status = 401;
        Worker w = Worker.builder(url, "bad").handleSignals(false).build();
        w.handle("t", job -> null);
        UnauthorizedException e = assertThrows(UnauthorizedException.class, w::run);
        assertEquals("urn:readpast:problem:unauthorized", e.type());
        assertThrows(UnauthorizedException.class, () -> new Producer(url, "bad").enqueue(NewJob.of("q", "t")));
    }

    @Test
    void jsonRoundTrip() {
        Object v = Json.parse("{\"a\":[1,2.5,\"x\\n\\u00e9\",true,null],\"b\":{}}");
        assertEquals("{\"a\":[1,2.5,\"x\\n\u00e9\",true,null],\"b\":{}}", Json.write(v));
        assertEquals("{\"queue\":\"q\",\"type\":\"t\",\"delaySeconds\":90,\"dependsOn\":{\"jobs\":[\"7\"]}}",
                NewJob.of("q", "t").delay(Duration.ofSeconds(90)).dependsOnJobs("7").toString());
    }
}
