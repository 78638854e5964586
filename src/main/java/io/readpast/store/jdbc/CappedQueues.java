package io.readpast.store.jdbc;

import io.readpast.store.Params;
import io.readpast.store.Stmt;

import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The names of the capped queues (a max-workers cap or a rate limit), as read at most a second
 * ago: a claim that can reach none of them needs no queue lock. Queue writes through this broker
 * make the next claim read the list again at once. A queue capped on another instance within
 * that second is skipped by this instance's claims until the list is read again (it is not
 * claimed from at all meanwhile: the cap never loosens).
 */
final class CappedQueues {

    /** How long the list is trusted. */
    private static final long TTL_NANOS = 1_000_000_000L;

    /** The list as last read, when (System.nanoTime), and after how many queue writes. */
    private record Snapshot(Set<String> names, Set<String> fairFree, long readAt, long queueWrites) {
    }

    private final SqlRunner sql;
    private volatile Snapshot known;
    private final AtomicBoolean reading = new AtomicBoolean();
    private final Object refresh = new Object();
    /** Queue writes committed through this broker: a list read before one of them is not trusted. */
    private final AtomicLong queueWrites = new AtomicLong();

    CappedQueues(SqlRunner sql) {
        this.sql = sql;
    }

    /** A queue write committed here (or failed): claims read the list again. */
    void queueWritten() {
        queueWrites.incrementAndGet();
    }

    /** Whether a claim over {@code queues} (null = every queue) may reach a capped queue. */
    boolean inScope(List<String> queues) {
        return inScope(current(), queues);
    }

    /**
     * The fair queues without any limit (round-robin alone) among {@code queues} (null = every
     * queue), by name: claimed by job_claim_fair without a queue lock.
     */
    List<String> fairFree(List<String> queues) {
        Snapshot s = current();
        return s.fairFree().stream().filter(q -> queues == null || queues.contains(q)).sorted().toList();
    }

    /**
     * The one queue a claim over {@code queues} can reach, when it is a fair queue with
     * round-robin alone (claimed by job_claim_fair alone, no lock, no plain claim); else null.
     * Every name in {@code queues} must be that queue: another name may be a plain queue.
     */
    String onlyFairFree(List<String> queues) {
        if (queues == null || queues.isEmpty()) {
            return null;
        }
        String only = queues.get(0);
        for (String q : queues) {
            if (!q.equals(only)) {
                return null;
            }
        }
        return current().fairFree().contains(only) ? only : null;
    }

    private Snapshot current() {
        Snapshot s = known;
        long writes = queueWrites.get();
        if (s == null || s.queueWrites() != writes) {
            // No list yet, or a queue write here since: every claim needs a fresh one, and the
            // claims that start together share one read (not one each, on a cold start).
            synchronized (refresh) {
                s = known;
                writes = queueWrites.get();
                if (s == null || s.queueWrites() != writes) {
                    s = read(writes);
                }
            }
        } else if (System.nanoTime() - s.readAt() > TTL_NANOS && reading.compareAndSet(false, true)) {
            // only old: one claim reads it, the others go by the old one meanwhile
            try {
                s = read(writes);
            } finally {
                reading.set(false);
            }
        }
        return s;
    }

    private static boolean inScope(Snapshot s, List<String> queues) {
        if (s.names().isEmpty()) {
            return false;
        }
        if (queues == null) {
            return true;
        }
        for (String q : queues) {
            if (s.names().contains(q)) {
                return true;
            }
        }
        return false;
    }

    private Snapshot read(long writes) {
        long readAt = System.nanoTime();
        Set<String> fairFree = new java.util.HashSet<>();
        List<String> names = sql.oneStatement(c -> sql.query(c, Stmt.QUEUE_LIST_CAPPED, Params.of(), (rs, cols) -> {
            String name = rs.getString(cols.get("name"));
            if (rs.getBoolean(cols.get("fair_free"))) {
                fairFree.add(name);
            }
            return name;
        }));
        Snapshot s = new Snapshot(Set.copyOf(names), Set.copyOf(fairFree), readAt, writes);
        known = s;
        return s;
    }
}
