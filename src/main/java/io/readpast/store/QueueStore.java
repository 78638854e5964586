package io.readpast.store;

import java.util.List;
import java.util.Optional;

/** Queue rows: settings, pause, and the counts a queue read returns. */
public interface QueueStore {

    /** Creates or replaces a queue's settings; the row as read back after the write committed. */
    QueueRow queueUpsert(QueueSettings settings);

    Optional<QueueRow> queueGet(String name);

    List<QueueRow> queueList(boolean includeInactive);

    QueueRow queueSetPaused(String name, boolean paused);

    /** The names among these that have a queue row (as given; the database's comparison decides). */
    List<String> queueFind(List<String> names);
}
