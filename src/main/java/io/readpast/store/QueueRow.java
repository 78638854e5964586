package io.readpast.store;

import java.time.Instant;

/** A queue row with its settings (null = use the broker default) and, where read, its job counts. */
public record QueueRow(
        String name,
        Integer maxWorkers,
        boolean paused,
        boolean active,
        Integer leaseSeconds,
        Integer maxAttempts,
        Long backoffBaseMs,
        Long backoffCapMs,
        Instant createdAt,
        Instant updatedAt,
        Counts counts,
        String webhookUrl,
        Integer rateLimit,
        Long ratePeriodMs,
        QueueSettings.Fairness fairness,
        boolean deleteSucceeded) {

    /** Job counts of a queue; {@code oldestDueAt} is the due time of its oldest claimable job,
     * {@code lagSeconds} its age on the database clock. */
    public record Counts(long pending, long scheduled, long leased, long processing, long dead, Instant oldestDueAt,
                         Double lagSeconds) {
    }
}
