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

    /** The names among these that have a queue row (as given; the database's comparison decides). */
    List<String> queueFind(List<String> names);
}
