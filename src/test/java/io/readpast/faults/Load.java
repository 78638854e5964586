package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** Small pieces the fault tests share: batch enqueue, and joining worker threads. */
final class Load {

    private Load() {
    }

    /**
     * POST /jobs/batch with {@code n} jobs; returns the new ids in order. Any answer other than
     * 200 with every item 201 is an {@link AssertionError} (a connection failure an IOException).
     */
    static List<Long> enqueueBatch(Api api, URI base, String queue, String type, int n,
                                   IntFunction<Object> payload) throws IOException {
        List<Map<String, Object>> jobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            jobs.add(Map.of("queue", queue, "type", type, "payload", payload.apply(i)));
        }
        Api.Reply r = api.post(base, "jobs/batch", Map.of("jobs", jobs));
        if (r.status() != 200 || r.body() == null) {
            throw new AssertionError("POST /jobs/batch answered " + r);
        }
        JsonNode results = r.body().get("results");
        if (results == null || results.size() != n) {
            throw new AssertionError("POST /jobs/batch: expected " + n + " results, got " + r);
        }
        List<Long> ids = new ArrayList<>(n);
        for (JsonNode item : results) {
            if (item.get("status").asInt() != 201) {
                throw new AssertionError("POST /jobs/batch item answered " + item);
            }
            ids.add(Long.parseLong(item.get("id").asText()));
        }
        return ids;
    }

    /** Waits (bounded) for every task; the first task failure is rethrown as an AssertionError. */
    static void join(List<? extends Future<?>> tasks, long timeoutSeconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        for (Future<?> f : tasks) {
            try {
                f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new AssertionError("A load thread failed: " + e.getCause(), e.getCause());
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("A load thread did not finish within " + timeoutSeconds + " s", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Stops a pool, waiting a bounded time for its threads to end. */
    static void stop(ExecutorService pool) {
        pool.shutdownNow();
        try {
            pool.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
