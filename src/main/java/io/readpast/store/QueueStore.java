package io.readpast.store;

import java.util.List;
import java.util.Optional;

/** Queue rows: settings, pause, and the counts a queue read returns. */
public interface QueueStore {

    /** Creates or replaces a queue's settings; the row as read back after the write committed. */
    QueueRow queueUpsert(QueueSettings settings);

    /**
     * Gives the key '' to up to {@code limit} pending jobs without a fairness key in a fair queue
     * ({@code queue}; null: every fair queue); returns how many.
     */
    int queueFairKeys(String queue, int limit);

    /** A fair queue's keys, most pending jobs first, at most {@code limit}. */
    List<KeyCounts> queueKeys(String queue, int limit);

    /** One fairness key of a queue: its pending (due or scheduled) and active jobs. */
    record KeyCounts(String key, long pending, long active) {
    }

    Optional<QueueRow> queueGet(String name);

    List<QueueRow> queueList(boolean includeInactive);

    QueueRow queueSetPaused(String name, boolean paused);

    /** The names among these that are queues (as given; the database's comparison decides). */
    List<String> queueFind(List<String> names);

    /**
     * What still holds a queue that is to be deleted: unfinished jobs, dead letters and finished
     * jobs (each counted up to 1001) and the schedules that enqueue into it.
     */
    record QueueHolds(long unfinished, long dead, long finished, long schedules) {
    }

    /** What {@link #queueDelete} found, and whether it deleted the queue. */
    record QueueDeletion(QueueHolds holds, boolean deleted) {
    }

    /**
     * In one transaction: locks the queue's row, reads what holds it, and when {@code mayGo}
     * says so makes the row a tombstone (settings back to their defaults; a job enqueued
     * meanwhile stays claimable). Empty when there is no such queue (or it was deleted before and
     * not used since).
     */
    Optional<QueueDeletion> queueDelete(String name, java.util.function.Predicate<QueueHolds> mayGo);

    /** Deletes up to {@code limit} of the queue's dead letters and up to {@code limit} of its finished jobs; returns how many. */
    int queuePurgeFinished(String name, int limit);
}
