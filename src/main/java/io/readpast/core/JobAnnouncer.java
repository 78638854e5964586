package io.readpast.core;

import jakarta.enterprise.context.ApplicationScoped;

import java.util.function.BiConsumer;

/**
 * Tells waiting claims that jobs became claimable: at once on this instance, and through the
 * engine's remote channel (PostgreSQL NOTIFY) to the others.
 */
@ApplicationScoped
public class JobAnnouncer {

    private final Wakeups wakeups;
    private volatile BiConsumer<String, Integer> remote = (q, n) -> { };
    private final java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();

    public JobAnnouncer(Wakeups wakeups) {
        this.wakeups = wakeups;
    }

    /** Installs the channel to other instances (none on SQL Server: they find work by polling). */
    public void connectRemote(BiConsumer<String, Integer> sender) {
        this.remote = sender;
    }

    /** {@code count} jobs became claimable in {@code queue}. */
    public void announce(String queue, int count) {
        wakeups.release(queue, count);
        remote.accept(queue, count);
    }

    /** Another instance announced jobs. */
    public void received(String queue, int count) {
        received.incrementAndGet();
        wakeups.release(queue, count);
    }

    /** Announcements received from other instances so far. */
    public long receivedCount() {
        return received.get();
    }
}
