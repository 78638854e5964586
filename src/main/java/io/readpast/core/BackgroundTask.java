package io.readpast.core;

import java.time.Duration;
import java.time.Instant;

/**
 * Work an instance does in the background, on {@link BackgroundTasks}: one pass at a time, each
 * returning when it next needs to look. Every task runs on every instance; each one says in its
 * own documentation why that is safe (docs/ARCHITECTURE.md has the table).
 */
public interface BackgroundTask {

    /** The thread's name, readpast-…: what the task does. */
    String name();

    /** The longest sleep between two passes: the task looks at least this often. */
    Duration longest();

    /** The shortest time between two passes: wake-ups in between are coalesced. */
    default Duration minGap() {
        return Duration.ofMillis(20);
    }

    /** How long after start-up the first pass runs. */
    default Duration firstDelay() {
        return Duration.ZERO;
    }

    /** Whether this instance runs the task at all (asked once, after the store is ready). */
    default boolean enabled() {
        return true;
    }

    /**
     * The alarm others ring to make the task look earlier ({@link Timetable.Alarm#wakeBy}); null
     * when nothing but time wakes it.
     */
    default Timetable.Alarm alarm() {
        return null;
    }

    /**
     * One pass; returns when the next one is needed, on the database clock, or null for "after
     * {@link #longest()}". A thrown exception is logged and the task looks again after
     * {@link #longest()}.
     */
    Instant pass() throws Exception;
}
