package io.readpast.core;

import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Long-polling claims of this instance wait here, without a database connection. A wake-up
 * is handed to just enough waiters for their claim limits to cover the new jobs (no thundering
 * herd, and jobs that arrive together go to one claim), first come first served, only to
 * waiters whose queue filter matches. Locks, not monitors, so that
 * virtual threads never pin their carrier while waiting.
 *
 * <p>Announcements are counted per queue, so that a waiter compares only the counters of its
 * own queues: a busy queue does not make the waiters of a quiet one claim again and again.
 */
@ApplicationScoped
public class Wakeups {

    /** One waiting claim: its queue filter (null = every queue) and whether it has been woken. */
    static final class Waiter {
        final Set<String> queues;
        final Condition woken;
        /** How many jobs this waiter's claim takes at most (its claim limit). */
        final int limit;
        boolean signalled;

        Waiter(Set<String> queues, Condition woken, int limit) {
            this.queues = queues;
            this.woken = woken;
            this.limit = Math.max(1, limit);
        }

        boolean wants(String queue) {
            return queues == null || queue == null || queues.contains(queue);
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    /** Every announcement, of any queue. */
    private final AtomicLong total = new AtomicLong();
    /** Announcements not tied to a queue (e.g. after a reconnect): they concern every waiter. */
    private final AtomicLong unqueued = new AtomicLong();
    private final ConcurrentHashMap<String, AtomicLong> perQueue = new ConcurrentHashMap<>();
    /** Told of each claim that starts waiting, with its queue filter (the due poll task). */
    private volatile java.util.function.Consumer<Collection<String>> onWait = q -> { };

    /** Installs the listener told of each claim that starts waiting. */
    void onWait(java.util.function.Consumer<Collection<String>> listener) {
        this.onWait = listener;
    }

    /**
     * Changes whenever new work may have become claimable in one of these queues (null = any
     * queue). A claim that found nothing remembers it, to wait instead of asking again.
     */
    public long generation(Collection<String> queues) {
        if (queues == null) {
            return total.get();
        }
        long g = unqueued.get();
        for (String q : queues) {
            AtomicLong n = perQueue.get(q);
            if (n != null) {
                g += n.get();
            }
        }
        return g;
    }

    public int waiting() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    /** The union of the waiters' queue filters; null when some waiter takes every queue. Empty when nobody waits. */
    public Set<String> wantedQueues() {
        lock.lock();
        try {
            Set<String> all = new HashSet<>();
            for (Waiter w : waiters) {
                if (w.queues == null) {
                    return null;
                }
                all.addAll(w.queues);
            }
            return all;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Up to {@code count} jobs became claimable in {@code queue} (null: anywhere): wake waiters,
     * first come first served, until their claim limits add up to {@code count}. Jobs that arrive
     * together then go to one claim where one claim can take them (a worker claiming up to 200
     * is woken alone for 5 new jobs), instead of one claim, statement and acknowledgement per job.
     */
    public void release(String queue, int count) {
        total.incrementAndGet();
        if (queue == null) {
            unqueued.incrementAndGet();
        } else {
            if (perQueue.size() > 100_000) {
                perQueue.clear();   // bounded; a cleared counter only costs a waiter one extra claim
                unqueued.incrementAndGet();
            }
            perQueue.computeIfAbsent(queue, q -> new AtomicLong()).incrementAndGet();
        }
        if (count <= 0) {
            return;
        }
        lock.lock();
        try {
            int left = count;
            for (Iterator<Waiter> it = waiters.iterator(); it.hasNext() && left > 0; ) {
                Waiter w = it.next();
                if (!w.signalled && w.wants(queue)) {
                    w.signalled = true;
                    w.woken.signal();
                    it.remove();
                    left -= w.limit;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits, for a claim of up to {@code limit} jobs, until woken or until {@code deadlineNanos}
     * (System.nanoTime). Returns true when
     * woken (or when something was announced for these queues since {@code seenGeneration}, so
     * that an announcement between the caller's empty claim and this call is not missed),
     * false at the deadline.
     */
    public boolean await(Collection<String> queues, int limit, long seenGeneration, long deadlineNanos)
            throws InterruptedException {
        lock.lock();
        Waiter w = new Waiter(queues == null ? null : Set.copyOf(queues), lock.newCondition(), limit);
        waiters.addLast(w);
        try {
            if (generation(queues) != seenGeneration) {
                return true;
            }
            onWait.accept(queues);
            long left = deadlineNanos - System.nanoTime();
            while (!w.signalled && left > 0) {
                left = w.woken.awaitNanos(left);
            }
            return w.signalled;
        } finally {
            waiters.remove(w);
            lock.unlock();
        }
    }
}
