package io.readpast.store;

import java.time.Instant;
import java.util.List;

/**
 * A batch as stored. {@code queues} its jobs' queues and its callback's; {@code callback} the
 * callback job as JSON ({@code {"queue", "type", "payload", "priority", "maxAttempts", "tags"}};
 * null: none); counts of its jobs: {@code total} added, {@code succeeded}, {@code dead},
 * {@code cancelled}. {@code finishedAt}: when it was closed and every job had finished;
 * {@code firedAt}: when its callback fired (once). The live counts ({@code waiting},
 * {@code pending}, {@code active}) come with a read of one batch only; null elsewhere.
 */
public record BatchRow(long id, List<String> queues, int fireOn, String callback, String webhookUrl,
                       boolean closed, int total, int succeeded, int dead, int cancelled, boolean hasDependents,
                       Long callbackJobId, String createdBy, Instant createdAt, Instant updatedAt,
                       Instant closedAt, Instant finishedAt, Instant firedAt, Instant cancelledAt,
                       Long waiting, Long pending, Long active) {

    public static final int FIRE_ON_COMPLETION = 0;
    public static final int FIRE_ON_SUCCESS = 1;
    public static final int FIRE_ON_DEATH = 2;

    public int finishedJobs() {
        return succeeded + dead + cancelled;
    }

    /** Closed, and every job it holds has finished. */
    public boolean finished() {
        return finishedAt != null;
    }
}
