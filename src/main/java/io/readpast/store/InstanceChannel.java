package io.readpast.store;

/**
 * A channel between broker instances on one database: announcements that jobs became
 * claimable in a queue, sent to the others and received from them (PostgreSQL LISTEN/NOTIFY).
 * An engine without one leaves other instances to find new work by their due poll.
 */
public interface InstanceChannel extends AutoCloseable {

    /** Tells the other instances that {@code count} jobs became claimable in {@code queue}. */
    void send(String queue, int count);

    /** Tells the other instances that a job of {@code queue} will come due at {@code dueAt}. */
    void sendDue(String queue, java.time.Instant dueAt);

    @Override
    void close();
}
