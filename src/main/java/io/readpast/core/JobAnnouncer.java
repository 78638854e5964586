package io.readpast.core;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.function.BiConsumer;

/**
 * Tells waiting claims that jobs became claimable (at once on this instance, and through the
 * engine's remote channel, PostgreSQL NOTIFY, to the others), and tells the due polls when
 * jobs will come due (a delayed enqueue, a retry after backoff) or that something may have
 * become claimable without a new job (a queue resumed).
 */
@ApplicationScoped
public class JobAnnouncer {

    private final Wakeups wakeups;
    private final Timetable timetable;
    private volatile BiConsumer<String, Integer> remote = (q, n) -> { };
    private volatile BiConsumer<String, Instant> remoteDue = (q, t) -> { };
    private final java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();

    public JobAnnouncer(Wakeups wakeups, Timetable timetable) {
        this.wakeups = wakeups;
        this.timetable = timetable;
    }

    /** Installs the channel to other instances (none on SQL Server: they find work by polling). */
    public void connectRemote(BiConsumer<String, Integer> sender, BiConsumer<String, Instant> dueSender) {
        this.remote = sender;
        this.remoteDue = dueSender;
    }

    /** {@code count} jobs became claimable in {@code queue}. */
    public void announce(String queue, int count) {
        wakeups.release(queue, count);
        remote.accept(queue, count);
    }

    /**
     * A job of {@code queue} comes due at {@code dueAt} (database clock); a time already past
     * means: look now (work may have become claimable that no enqueue announced).
     */
    public void scheduled(String queue, Instant dueAt) {
        timetable.noteDue(dueAt);
        remoteDue.accept(queue, dueAt);
    }

    /** Another instance announced jobs. */
    public void received(String queue, int count) {
        received.incrementAndGet();
        wakeups.release(queue, count);
    }

    /** Another instance scheduled a job of {@code queue} for {@code dueAt}. */
    public void receivedScheduled(String queue, Instant dueAt) {
        received.incrementAndGet();
        timetable.noteDue(dueAt);
    }

    /** Announcements received from other instances so far. */
    public long receivedCount() {
        return received.get();
    }
}
