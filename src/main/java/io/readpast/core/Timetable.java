package io.readpast.core;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * When the instance's two alarm-driven tasks must next look at the database: the due poll (a
 * job comes due) and the lease expiry task (a lease runs out). Each sleeps until the earliest time
 * it was told of, instead of polling on a fixed period: the times come from the database (the
 * poll's and the expiry task's own reads) and from this instance's writes and other instances'
 * notifications (a delayed job enqueued, a retry scheduled, a lease handed out). Times on the
 * database clock are turned into local ones with the offset the last read observed.
 */
@ApplicationScoped
public class Timetable {

    /** Late by this much rather than early: a check just before the due time would find nothing. */
    private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final Alarm due = new Alarm();
    private final Alarm leases = new Alarm();
    /** Database clock minus local clock, in milliseconds, as last observed. */
    private volatile long skewMs;

    /** The due poll's alarm. */
    public Alarm due() {
        return due;
    }

    /** The lease expiry task's alarm. */
    public Alarm leases() {
        return leases;
    }

    /** A statement answered with the database's {@code now}: keeps the clock offset current. */
    public void observedDbNow(Instant dbNow) {
        if (dbNow != null) {
            skewMs = dbNow.toEpochMilli() - System.currentTimeMillis();
        }
    }

    /** The database's clock now, as well as this instance knows it (its own clock plus the last offset seen). */
    public Instant dbNowEstimate() {
        return Instant.ofEpochMilli(System.currentTimeMillis() + skewMs);
    }

    /** A pending job comes due at {@code dueAt} (database clock): the due poll looks then. */
    public void noteDue(Instant dueAt) {
        due.wakeBy(lookAt(dueAt));
    }

    /** Something may be claimable now that no announcement covers: the due poll looks at once. */
    public void checkDueNow() {
        due.wakeBy(System.nanoTime());
    }

    /** A lease runs out at {@code expiresAt} (database clock): the lease expiry task looks then. */
    public void noteLeaseExpiry(Instant expiresAt) {
        leases.wakeBy(lookAt(expiresAt));
    }

    /**
     * When (System.nanoTime) to look for something due at {@code dbTime} on the database clock:
     * a little late rather than early, since a look just before the time would find nothing.
     */
    public long lookAt(Instant dbTime) {
        return nanosAt(dbTime) + MARGIN_NANOS;
    }

    /** The System.nanoTime at which the local clock reaches {@code dbTime} on the database clock. */
    private long nanosAt(Instant dbTime) {
        long localMs = dbTime.toEpochMilli() - skewMs;
        long inMs = localMs - System.currentTimeMillis();
        // clamp: a time far ahead only needs to be later than any loop's own bound
        inMs = Math.max(-1000, Math.min(inMs, TimeUnit.DAYS.toMillis(1)));
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(inMs);
    }

    /**
     * A loop's sleep: {@link #arm} before it reads the database (requests from then on are kept),
     * then {@link #sleepUntil} with the time it found; it wakes at the earliest of that time and
     * every {@link #wakeBy} since it armed. Locks, not monitors: loops run on virtual threads.
     */
    public static final class Alarm {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private long wakeAt;
        private boolean requested;

        /** Forgets earlier requests: the caller is about to read the state they were about. */
        public void arm() {
            lock.lock();
            try {
                requested = false;
            } finally {
                lock.unlock();
            }
        }

        /** Asks the sleeper to wake no later than {@code nanos} (System.nanoTime). */
        public void wakeBy(long nanos) {
            lock.lock();
            try {
                if (!requested || nanos - wakeAt < 0) {
                    requested = true;
                    wakeAt = nanos;
                    changed.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }

        /**
         * Sleeps until {@code nanos}, or until an earlier requested time, but not before
         * {@code notBefore} (so that a stream of requests cannot make the loop spin).
         */
        public void sleepUntil(long nanos, long notBefore) throws InterruptedException {
            lock.lock();
            try {
                while (true) {
                    long until = requested && wakeAt - nanos < 0 ? wakeAt : nanos;
                    if (until - notBefore < 0) {
                        until = notBefore;
                    }
                    long left = until - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    changed.awaitNanos(left);
                }
            } finally {
                lock.unlock();
            }
        }
    }
}
