package io.readpast.store;

import java.time.Instant;

/**
 * What the store needs to insert one job. {@code runAt} null means now plus {@code delayMs};
 * {@code webhookUrl} null means the queue's webhook, if any; {@code expiresAt} null means
 * never. With a {@code uniqueKey}, the job is unique for {@code uniqueForMs}: while another job
 * holds the key within its window, that job is the answer and nothing is inserted. Jobs with
 * the same {@code groupKey} in a queue run one at a time, in enqueue order. {@code traceparent}
 * and {@code tracestate} are the W3C trace context the enqueue carried (null: none);
 * {@code fairnessKey} the key a fair queue serves in turn with the others (null: none);
 * {@code timeoutSeconds} the most it may run, from its claim on (null: no limit);
 * {@code retryPolicy} its own retry backoff as JSON text (null: its queue's).
 */
public record NewJob(
        String queue,
        String type,
        String payload,
        String tags,
        String idempotencyKey,
        int priority,
        Integer maxAttempts,
        int defaultMaxAttempts,
        Instant runAt,
        long delayMs,
        String createdBy,
        String webhookUrl,
        Instant expiresAt,
        String uniqueKey,
        long uniqueForMs,
        String groupKey,
        String traceparent,
        String tracestate,
        String fairnessKey,
        Integer timeoutSeconds,
        String retryPolicy) {

    /** A job with its queue's retry backoff. */
    public NewJob(String queue, String type, String payload, String tags, String idempotencyKey, int priority,
                  Integer maxAttempts, int defaultMaxAttempts, Instant runAt, long delayMs, String createdBy,
                  String webhookUrl, Instant expiresAt, String uniqueKey, long uniqueForMs, String groupKey,
                  String traceparent, String tracestate, String fairnessKey, Integer timeoutSeconds) {
        this(queue, type, payload, tags, idempotencyKey, priority, maxAttempts, defaultMaxAttempts, runAt, delayMs,
                createdBy, webhookUrl, expiresAt, uniqueKey, uniqueForMs, groupKey, traceparent, tracestate,
                fairnessKey, timeoutSeconds, null);
    }

    /** A job with no time limit. */
    public NewJob(String queue, String type, String payload, String tags, String idempotencyKey, int priority,
                  Integer maxAttempts, int defaultMaxAttempts, Instant runAt, long delayMs, String createdBy,
                  String webhookUrl, Instant expiresAt, String uniqueKey, long uniqueForMs, String groupKey,
                  String traceparent, String tracestate, String fairnessKey) {
        this(queue, type, payload, tags, idempotencyKey, priority, maxAttempts, defaultMaxAttempts, runAt, delayMs,
                createdBy, webhookUrl, expiresAt, uniqueKey, uniqueForMs, groupKey, traceparent, tracestate,
                fairnessKey, null);
    }

    /** A job with trace context and no fairness key. */
    public NewJob(String queue, String type, String payload, String tags, String idempotencyKey, int priority,
                  Integer maxAttempts, int defaultMaxAttempts, Instant runAt, long delayMs, String createdBy,
                  String webhookUrl, Instant expiresAt, String uniqueKey, long uniqueForMs, String groupKey,
                  String traceparent, String tracestate) {
        this(queue, type, payload, tags, idempotencyKey, priority, maxAttempts, defaultMaxAttempts, runAt, delayMs,
                createdBy, webhookUrl, expiresAt, uniqueKey, uniqueForMs, groupKey, traceparent, tracestate, null);
    }

    /** A job with no trace context. */
    public NewJob(String queue, String type, String payload, String tags, String idempotencyKey, int priority,
                  Integer maxAttempts, int defaultMaxAttempts, Instant runAt, long delayMs, String createdBy,
                  String webhookUrl, Instant expiresAt, String uniqueKey, long uniqueForMs, String groupKey) {
        this(queue, type, payload, tags, idempotencyKey, priority, maxAttempts, defaultMaxAttempts, runAt, delayMs,
                createdBy, webhookUrl, expiresAt, uniqueKey, uniqueForMs, groupKey, null, null);
    }
}
