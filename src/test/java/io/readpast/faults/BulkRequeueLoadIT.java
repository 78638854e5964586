package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 44's bulk requeue at size, on the packaged broker: 100,000 DEAD jobs of one queue are
 * requeued by repeated {@code POST /jobs/bulk} calls (10,000 per call, each going on from the
 * last one's cursor) while 8 workers claim and complete them through the same broker. Every
 * job is requeued exactly once (the calls' counts add up to 100,000 with nothing skipped),
 * claimed exactly once (no job leased twice), and ends SUCCEEDED; nothing is left DEAD or PENDING.
 */
class BulkRequeueLoadIT {

    private static final int JOBS = 100_000;
    private static final int WORKERS = 8;
    private static final String QUEUE = "bulk-load";
    private static Brokers brokers;

    @BeforeAll
    static void start() {
        brokers = Brokers.start("bulk", 1);
    }

    @AfterAll
    static void stop() {
        if (brokers != null) {
            brokers.close();
        }
    }

    @Test
    void oneHundredThousandDeadJobsAreRequeuedWhileEightWorkersClaimThem() throws Exception {
        assumeTrue(FaultDb.isPostgres(), "seeds the dead-letter table with PostgreSQL's generate_series; "
                + "the bulk path's statements are the single calls' (run by the SQL Server suite)");
        FaultDb.clean();
        try (Connection c = FaultDb.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO readpast_job_dead (id, queue, type, payload, priority, status, attempt, "
                    + "max_attempts, due_at, last_error, created_at, updated_at, finished_at) "
                    + "SELECT nextval(pg_get_serial_sequence('readpast_job', 'id')), '" + QUEUE + "', 'sync', "
                    + "'{\"n\":' || g || '}', 0, 4, 3, 3, now(), 'upstream 503', now(), now(), now() "
                    + "FROM generate_series(1, " + JOBS + ") AS g");
            s.execute("ANALYZE readpast_job_dead");
        }
        URI base = brokers.uri(0);
        Api api = brokers.api;
        // the queue the jobs died in exists, as it would have when they were enqueued
        assertEquals(200, api.put(base, "/queues/" + QUEUE, Map.of()).status());

        Set<Long> claimed = ConcurrentHashMap.newKeySet();
        AtomicLong twice = new AtomicLong();
        AtomicLong completed = new AtomicLong();
        AtomicBoolean requeueDone = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        List<Future<?>> workers = new ArrayList<>();
        long started = System.nanoTime();
        for (int w = 0; w < WORKERS; w++) {
            String worker = "w" + w;
            workers.add(pool.submit(() -> {
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(12);
                while (completed.get() < JOBS && System.nanoTime() < deadline) {
                    Api.Reply r = api.post(base, "/claim", Map.of("workerId", worker, "queues", List.of(QUEUE),
                            "limit", 100, "waitSeconds", requeueDone.get() ? 1 : 2));
                    assertEquals(200, r.status(), "claim: " + r);
                    List<Map<String, Object>> items = new ArrayList<>();
                    for (JsonNode j : r.body().get("jobs")) {
                        long id = Long.parseLong(j.get("id").asText());
                        if (!claimed.add(id)) {
                            twice.incrementAndGet();
                        }
                        items.add(Map.of("id", j.get("id").asText(), "leaseId", j.get("leaseId").asText()));
                    }
                    if (!items.isEmpty()) {
                        Api.Reply done = api.post(base, "/jobs/complete", Map.of("items", items));
                        assertEquals(200, done.status(), "complete: " + done);
                        assertEquals(items.size(), done.body().get("succeeded").asInt(), "complete: " + done);
                        completed.addAndGet(items.size());
                    }
                }
                return null;
            }));
        }

        long matched = 0;
        long changed = 0;
        long skipped = 0;
        int calls = 0;
        String after = null;
        do {
            Map<String, Object> body = new HashMap<>();
            body.put("action", "requeue");
            body.put("filter", Map.of("queue", QUEUE, "status", "DEAD"));
            body.put("limit", 10_000);
            if (after != null) {
                body.put("after", after);
            }
            Api.Reply r = api.send(base, "POST", "/jobs/bulk", body, Duration.ofMinutes(5));
            assertEquals(200, r.status(), "bulk requeue: " + r);
            calls++;
            matched += r.body().get("matched").asLong();
            changed += r.body().get("changed").asLong();
            skipped += r.body().get("skipped").asLong();
            after = r.body().hasNonNull("next") ? r.body().get("next").asText() : null;
        } while (after != null && calls < 20);
        double requeueSeconds = (System.nanoTime() - started) / 1e9;
        requeueDone.set(true);
        for (Future<?> f : workers) {
            f.get(15, TimeUnit.MINUTES);
        }
        pool.shutdown();
        double allSeconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("bulk requeue of %d jobs under %d workers: %d calls, %.1f s to requeue (%.0f jobs/s), "
                        + "%.1f s until all completed%n", JOBS, WORKERS, calls, requeueSeconds, JOBS / requeueSeconds,
                allSeconds);

        assertNull(after, "the scan reached the end within 20 calls");
        assertEquals(JOBS, matched, "every DEAD job matched once");
        assertEquals(JOBS, changed, "every one requeued");
        assertEquals(0, skipped, "nobody else touched the dead letters");
        assertEquals(0, twice.get(), "no job leased twice");
        assertEquals(JOBS, claimed.size(), "every requeued job claimed");
        assertEquals(JOBS, completed.get());
        assertEquals(JOBS, FaultDb.count("SELECT COUNT(*) FROM readpast_job_archive WHERE queue = ? AND status = 3",
                QUEUE), "all SUCCEEDED");
        assertEquals(0, FaultDb.count("SELECT COUNT(*) FROM readpast_job WHERE queue = ?", QUEUE));
        assertEquals(0, FaultDb.count("SELECT COUNT(*) FROM readpast_job_dead WHERE queue = ?", QUEUE));
    }
}
