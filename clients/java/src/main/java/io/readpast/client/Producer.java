package io.readpast.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Enqueues jobs. Every method throws a {@link ReadpastException} subclass
 * ({@link InvalidRequestException}, {@link UnauthorizedException}, {@link ForbiddenException},
 * {@link NotFoundException}, {@link ConflictException}, {@link UnavailableException},
 * {@link ConnectionException}) when the broker refuses the whole request. Thread-safe.
 */
public final class Producer {

    /** The answer to an enqueue: {@code created} is false when an idempotency key, uniqueFor or debounce window matched. */
    public record Enqueued(JobView job, boolean created) {
        public String id() {
            return job.id();
        }
    }

    /** One item of a batch enqueue: 201 created, 200 matched an existing job, else {@code error}. */
    public record ItemResult(int index, int status, String id, JobView job, ReadpastException error) {
        public boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    /** A batch as the broker shows it. */
    public record Batch(Map<String, Object> data) {
        public String id() {
            return (String) data.get("id");
        }

        public String state() {
            return (String) data.get("state");
        }

        public int total() {
            return ((Number) data.getOrDefault("total", 0)).intValue();
        }
    }

    private final Http http;

    public Producer(String url, String apiKey) {
        this.http = new Http(url, apiKey, Duration.ofSeconds(30));
    }

    /** Enqueues one job (POST /jobs). */
    @SuppressWarnings("unchecked")
    public Enqueued enqueue(NewJob job) {
        Http.Answer a = http.call("POST", "/jobs", job.toMap());
        return new Enqueued(new JobView((Map<String, Object>) a.body()), a.status() == 201);
    }

    /** Enqueues many jobs, 1000 per POST /jobs/batch, each on its own: one result per job, in order. */
    public List<ItemResult> enqueueMany(List<NewJob> jobs) {
        return enqueueMany(jobs, null);
    }

    /** As {@link #enqueueMany(List)}, the traceparent applying to the jobs that carry none. */
    @SuppressWarnings("unchecked")
    public List<ItemResult> enqueueMany(List<NewJob> jobs, String traceparent) {
        List<ItemResult> out = new ArrayList<>(jobs.size());
        for (int start = 0; start < jobs.size(); start += 1000) {
            List<Map<String, Object>> chunk = new ArrayList<>();
            for (NewJob j : jobs.subList(start, Math.min(jobs.size(), start + 1000))) {
                Map<String, Object> m = j.toMap();
                if (traceparent != null && !j.hasTraceparent()) {
                    m.put("traceparent", traceparent);
                }
                chunk.add(m);
            }
            Map<String, Object> answer = http.call("POST", "/jobs/batch", Map.of("jobs", chunk)).map();
            for (Object o : (List<Object>) answer.get("results")) {
                Map<String, Object> r = (Map<String, Object>) o;
                int status = ((Number) r.get("status")).intValue();
                Object job = r.get("job");
                out.add(new ItemResult(start + ((Number) r.get("index")).intValue(), status, (String) r.get("id"),
                        job == null ? null : new JobView((Map<String, Object>) job),
                        r.get("error") == null ? null : ReadpastException.of(status, r.get("error"), "", null, null)));
            }
        }
        return out;
    }

    /**
     * POST /batches: jobs that settle together, and a callback job (queue, type, payload, priority,
     * maxAttempts are used) enqueued once when the batch fires on {@code fireOn}: "completion"
     * (null: the default), "success" or "death".
     */
    public Batch createBatch(List<NewJob> jobs, NewJob callback, String fireOn) {
        Map<String, Object> body = new LinkedHashMap<>();
        List<Map<String, Object>> items = new ArrayList<>();
        jobs.forEach(j -> items.add(j.toMap()));
        body.put("jobs", items);
        if (callback != null) {
            Map<String, Object> cb = new LinkedHashMap<>();
            callback.toMap().forEach((k, v) -> {
                if (List.of("queue", "type", "payload", "priority", "maxAttempts").contains(k)) {
                    cb.put(k, v);
                }
            });
            body.put("callback", cb);
        }
        if (fireOn != null) {
            body.put("fireOn", fireOn);
        }
        return new Batch(http.call("POST", "/batches", body).map());
    }

    /** An open batch (POST /batches with open: true), to fill with {@link #addToBatch} and {@link #closeBatch}. */
    public Batch openBatch() {
        return new Batch(http.call("POST", "/batches", Map.of("jobs", List.of(), "open", true)).map());
    }

    public Batch addToBatch(String batchId, List<NewJob> jobs) {
        List<Map<String, Object>> items = new ArrayList<>();
        jobs.forEach(j -> items.add(j.toMap()));
        return new Batch(http.call("POST", "/batches/" + batchId + "/jobs", Map.of("jobs", items)).map());
    }

    public Batch closeBatch(String batchId) {
        return new Batch(http.call("POST", "/batches/" + batchId + "/close", null).map());
    }

    public Batch getBatch(String batchId) {
        return new Batch(http.call("GET", "/batches/" + batchId, null).map());
    }

    /** A job wherever it lives, with its errors. */
    public JobView getJob(String id) {
        return new JobView(http.call("GET", "/jobs/" + id, null).map());
    }
}
