package io.readpast.store;

import java.time.Instant;

/**
 * A job as stored, in whichever table it lives. JSON columns are kept as JSON text ({@code errors}:
 * the last attempts' errors, read only by the statements that select it, else null). The
 * {@code queueBackoff*} fields carry the job's queue settings where a statement joins them in.
 * {@code webhookUrl} is the job's own completion webhook (null: the queue's, if any);
 * {@code expiresAt} when a job not started by then never starts (hot rows only); {@code groupKey}
 * its ordered group (null: none); {@code batchId} its batch (null: none); {@code hasDependents}
 * whether jobs wait on it; {@code depsLeft} its parents not settled yet (WAITING while above 0);
 * {@code timeoutSeconds} the most it may run from a claim and {@code deadlineAt} the current
 * lease's end by that limit (hot rows only; null: no limit); {@code retryPolicy} its own retry
 * backoff, JSON text (hot rows only; null: its queue's).
 */
public record JobRow(
        long id,
        String queue,
        String type,
        String payload,
        String tags,
        String idempotencyKey,
        int priority,
        int status,
        int attempt,
        int maxAttempts,
        Instant dueAt,
        String workerId,
        String leaseId,
        Integer leaseSeconds,
        Instant leaseExpiresAt,
        Instant heartbeatAt,
        String progress,
        boolean cancelRequested,
        String lastError,
        String errors,
        String result,
        String createdBy,
        String modifiedBy,
        Instant createdAt,
        Instant startedAt,
        Instant updatedAt,
        Instant finishedAt,
        Long queueBackoffBaseMs,
        Long queueBackoffCapMs,
        String webhookUrl,
        Instant expiresAt,
        String groupKey,
        String traceparent,
        String tracestate,
        String fairnessKey,
        Long batchId,
        boolean hasDependents,
        int depsLeft,
        Integer timeoutSeconds,
        Instant deadlineAt,
        String retryPolicy) {

    /** In a batch, or some job waits on it: its move settles them in the same transaction. */
    public boolean linked() {
        return batchId != null || hasDependents;
    }
}
