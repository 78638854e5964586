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
        Long ratePeriodMs,
        Fairness fairness) {

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
