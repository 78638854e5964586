package io.readpast.store;

/**
 * Settings written by PUT /queues/{name}; a null means "use the broker default".
 * {@code deleteSucceeded}: a succeeded job is deleted when it completes instead of moved to the
 * archive (jobs of a batch and jobs others wait on are archived all the same).
 */
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
        Long ratePeriodMs,
        Fairness fairness,
        boolean deleteSucceeded) {

    /** Settings whose succeeded jobs go to the archive (the default). */
    public QueueSettings(String name, Integer maxWorkers, boolean paused, boolean active, Integer leaseSeconds,
                         Integer maxAttempts, Long backoffBaseMs, Long backoffCapMs, String webhookUrl,
                         Integer rateLimit, Long ratePeriodMs, Fairness fairness) {
        this(name, maxWorkers, paused, active, leaseSeconds, maxAttempts, backoffBaseMs, backoffCapMs, webhookUrl,
                rateLimit, ratePeriodMs, fairness, false);
    }

    /** Settings with no fairness (no key settings). */
    public QueueSettings(String name, Integer maxWorkers, boolean paused, boolean active, Integer leaseSeconds,
                         Integer maxAttempts, Long backoffBaseMs, Long backoffCapMs, String webhookUrl,
                         Integer rateLimit, Long ratePeriodMs) {
        this(name, maxWorkers, paused, active, leaseSeconds, maxAttempts, backoffBaseMs, backoffCapMs, webhookUrl,
                rateLimit, ratePeriodMs, Fairness.NONE);
    }

    /**
     * A fair queue's settings: {@code fair} serves the keys with due work in turn; at most
     * {@code keyMaxWorkers} jobs of one key LEASED or PROCESSING at once; at most
     * {@code keyRateLimit} claims of one key per {@code keyRatePeriodMs} window (null: no such limit).
     */
    public record Fairness(boolean fair, Integer keyMaxWorkers, Integer keyRateLimit, Long keyRatePeriodMs) {
        public static final Fairness NONE = new Fairness(false, null, null, null);
    }
}
