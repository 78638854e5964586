package io.readpast.store;

/** Settings written by PUT /queues/{name}; a null means "use the broker default". */
public record QueueSettings(
        String name,
        Integer maxWorkers,
        boolean paused,
        boolean active,
        Integer leaseSeconds,
        Integer maxAttempts,
        Long backoffBaseMs,
        Long backoffCapMs,
        String webhookUrl,
        Integer rateLimit,
        Long ratePeriodMs) {
}
