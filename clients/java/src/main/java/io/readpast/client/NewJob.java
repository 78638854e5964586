package io.readpast.client;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A job to enqueue (POST /jobs, an item of {@link Producer#enqueueMany}, a job of a batch):
 * {@code NewJob.of("emails", "send").payload(Map.of("to", "a@b.c")).priority(5)}. Unset fields
 * take the broker's defaults.
 */
public final class NewJob {
    private final Map<String, Object> body = new LinkedHashMap<>();

    private NewJob(String queue, String type) {
        body.put("queue", queue);
        body.put("type", type);
    }

    public static NewJob of(String queue, String type) {
        return new NewJob(queue, type);
    }

    private NewJob set(String field, Object value) {
        if (value == null) {
            body.remove(field);
        } else {
            body.put(field, value);
        }
        return this;
    }

    /** Any JSON value: Map, List, String, Number, Boolean, a record, or {@link Json.Raw} text. */
    public NewJob payload(Object payload) {
        return set("payload", payload);
    }

    /** Higher is claimed first (0). */
    public NewJob priority(int priority) {
        return set("priority", priority);
    }

    /** Due this long from now (whole seconds). */
    public NewJob delay(Duration delay) {
        return set("delaySeconds", Math.round(delay.toMillis() / 1000.0));
    }

    /** Or due at this time. */
    public NewJob runAt(Instant at) {
        return set("runAt", at.toString());
    }

    public NewJob tags(String... tags) {
        return set("tags", List.of(tags));
    }

    /** Attempts before the job goes DEAD. */
    public NewJob maxAttempts(int attempts) {
        return set("maxAttempts", attempts);
    }

    /** While a live job holds this key, enqueueing again returns that job (not created). */
    public NewJob idempotencyKey(String key) {
        return set("idempotencyKey", key);
    }

    /** For this long, the same job answers with the first one. */
    public NewJob uniqueFor(Duration window) {
        return set("uniqueFor", Math.round(window.toMillis() / 1000.0));
    }

    /** Never start after this time. */
    public NewJob expiresAt(Instant at) {
        return set("expiresAt", at.toString());
    }

    /** Ordered group: jobs of one group run one at a time, in enqueue order. */
    public NewJob groupKey(String key) {
        return set("groupKey", key);
    }

    /**
     * Debounce: the first enqueue with {@code key} opens a window of {@code window} (whole seconds,
     * 1 s to 24 h) and the job runs at its end; another with the same key inside it replaces that
     * job's payload and priority (not created). Single enqueues only, without idempotencyKey,
     * uniqueFor, groupKey, dependsOn, runAt or delay.
     */
    public NewJob debounce(String key, Duration window) {
        set("debounceKey", key);
        return set("debounceSeconds", Math.round(window.toMillis() / 1000.0));
    }

    /** The most it may run from its claim: no lease runs past that (whole seconds). */
    public NewJob timeout(Duration limit) {
        return set("timeoutSeconds", Math.round(limit.toMillis() / 1000.0));
    }

    /** Its own retry backoff: these delays (the last repeats), in place of its queue's. */
    public NewJob retryDelays(Duration... delays) {
        java.util.List<Double> seconds = new java.util.ArrayList<>();
        for (Duration d : delays) {
            seconds.add(d.toMillis() / 1000.0);
        }
        return set("retry", Map.of("delaysSeconds", seconds));
    }

    /** Its own retry backoff: base, times factor per attempt, up to cap, with or without equal jitter. */
    public NewJob retryBackoff(Duration base, double factor, Duration cap, boolean jitter) {
        return set("retry", Map.of("baseSeconds", base.toMillis() / 1000.0, "factor", factor,
                "capSeconds", cap.toMillis() / 1000.0, "jitter", jitter));
    }

    /** A tenant: fair queues serve their keys in turn. */
    public NewJob fairnessKey(String key) {
        return set("fairnessKey", key);
    }

    /** WAITING until these jobs have settled. */
    public NewJob dependsOnJobs(String... jobIds) {
        return dependsOn("jobs", jobIds);
    }

    /** WAITING until these batches have settled. */
    public NewJob dependsOnBatches(String... batchIds) {
        return dependsOn("batches", batchIds);
    }

    @SuppressWarnings("unchecked")
    private NewJob dependsOn(String what, String[] ids) {
        Map<String, Object> d = (Map<String, Object>) body.computeIfAbsent("dependsOn", k -> new LinkedHashMap<>());
        ((List<String>) d.computeIfAbsent(what, k -> new ArrayList<String>())).addAll(List.of(ids));
        return this;
    }

    /** "cancel" (the default) or "run": what a parent ending DEAD or CANCELLED does to this job. */
    public NewJob onParentFailure(String policy) {
        return set("onParentFailure", policy);
    }

    public NewJob webhookUrl(String url) {
        return set("webhookUrl", url);
    }

    /** The producer's W3C trace context: the handler gets it back. */
    public NewJob traceparent(String traceparent) {
        return set("traceparent", traceparent);
    }

    public NewJob tracestate(String tracestate) {
        return set("tracestate", tracestate);
    }

    boolean hasTraceparent() {
        return body.containsKey("traceparent");
    }

    /** The request body. */
    public Map<String, Object> toMap() {
        return new LinkedHashMap<>(body);
    }

    @Override
    public String toString() {
        return Json.write(body);
    }
}
