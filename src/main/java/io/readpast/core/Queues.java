package io.readpast.core;

import io.readpast.store.QueueRow;
import io.readpast.store.QueueSettings;
import io.readpast.store.QueueStore;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Queues: their settings, pause and resume, deletion, and which names exist. A name seen to exist
 * is not asked of the database again (a queue deleted on another instance stays known here: the
 * only use of the answer is the claim's unknownQueues hint); a name found missing is answered
 * from here for a few seconds, so idle long-polls on a mistyped queue cost no statement per answer.
 */
@ApplicationScoped
public class Queues {

    private static final Logger LOG = Logger.getLogger(Queues.class);
    private static final long UNKNOWN_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Past this many names, a cache starts again (a client making up names must not grow it without bound). */
    private static final int CACHE_LIMIT = 100_000;
    /** Keyless pending jobs given the key '' per transaction when a queue becomes fair. */
    private static final int FAIR_KEYS_BATCH = 1000;

    private final QueueStore store;
    private final JobOutcomes outcomes;
    private final Set<String> known = ConcurrentHashMap.newKeySet();
    /** Queues found missing, with when (System.nanoTime) to ask again. */
    private final Map<String, Long> unknownUntil = new ConcurrentHashMap<>();
    private final ReentrantLock unknownCheck = new ReentrantLock();
    /** Unknown queue names already logged by this instance (bounded). */
    private final Set<String> loggedUnknown = ConcurrentHashMap.newKeySet();

    public Queues(QueueStore store, JobOutcomes outcomes) {
        this.store = store;
        this.outcomes = outcomes;
    }

    public List<QueueRow> list(boolean includeInactive) {
        return store.queueList(includeInactive);
    }

    /** A queue's fairness keys, most pending jobs first. */
    public List<io.readpast.store.QueueStore.KeyCounts> keys(String name, int limit) {
        return store.queueKeys(name, limit);
    }

    public QueueRow get(String name) {
        return store.queueGet(name)
                .orElseThrow(() -> new BrokerException(BrokerException.Kind.NOT_FOUND, "No queue named '" + name + "'."));
    }

    public QueueRow put(QueueSettings settings, String by) {
        LOG.infof("Queue %s set by %s: %s", settings.name(), Audit.who(by), settings);
        QueueRow row = store.queueUpsert(settings);
        if (settings.fairness().fair()) {
            // its keyless pending jobs join the key '', in batches of their own
            while (store.queueFairKeys(settings.name(), FAIR_KEYS_BATCH) >= FAIR_KEYS_BATCH) {
                LOG.debugf("Queue %s: keyless jobs given the key ''", settings.name());
            }
        }
        return settingsChanged(row);
    }

    public QueueRow pause(String name, boolean paused, String by) {
        if (store.queueGet(name).isEmpty()) {
            // a typo must not make a queue: pause and resume change a queue that exists
            throw new BrokerException(BrokerException.Kind.NOT_FOUND, "No queue named '" + name + "': pause and resume "
                    + "change an existing queue; PUT /queues/" + name + " creates one (\"paused\": true to start paused).");
        }
        LOG.infof("Queue %s %s by %s", name, paused ? "paused" : "resumed", Audit.who(by));
        return settingsChanged(store.queueSetPaused(name, paused));
    }

    /** Finished jobs deleted per transaction when a queue is deleted with purge. */
    private static final int PURGE_CHUNK = 1000;

    /**
     * Deletes a queue (DELETE /queues/{name}): refused while it holds unfinished jobs or dead
     * letters, or a schedule enqueues into it; {@code purge} first deletes its finished jobs and
     * dead letters, in transactions of {@value #PURGE_CHUNK} rows per table. Its finished history
     * otherwise stays until retention. The row stays as a tombstone with default settings, so a
     * job enqueued meanwhile stays claimable and the queue comes back with it; the next PUT makes
     * it a configured queue again. Returns how many finished jobs were purged.
     */
    public long delete(String name, boolean purge, String by) {
        long purged = 0;
        if (purge) {
            // nothing of its history goes while the queue could not go anyway
            QueueStore.QueueDeletion look = store.queueDelete(name, h -> false).orElseThrow(() -> noQueue(name));
            refuseWhileHeld(name, look.holds(), true);
            int n;
            while ((n = store.queuePurgeFinished(name, PURGE_CHUNK)) > 0) {
                purged += n;
            }
        }
        QueueStore.QueueDeletion done = store.queueDelete(name,
                h -> h.unfinished() == 0 && h.dead() == 0 && h.schedules() == 0).orElseThrow(() -> noQueue(name));
        if (!done.deleted()) {
            refuseWhileHeld(name, done.holds(), purge);
        }
        known.remove(name);
        outcomes.queueChanged(name, null);
        LOG.infof("Queue %s deleted by %s%s", name, Audit.who(by), purge ? " (" + purged + " finished jobs purged)" : "");
        return purged;
    }

    private static BrokerException noQueue(String name) {
        return new BrokerException(BrokerException.Kind.NOT_FOUND, "No queue named '" + name + "'.");
    }

    /** 409 naming what holds the queue; returns when nothing does (dead letters count only without purge). */
    private static void refuseWhileHeld(String name, QueueStore.QueueHolds h, boolean purge) {
        java.util.List<String> why = new java.util.ArrayList<>();
        if (h.unfinished() > 0) {
            why.add(count(h.unfinished()) + " unfinished job" + (h.unfinished() == 1 ? "" : "s")
                    + " (cancel them first, or let them finish)");
        }
        if (h.dead() > 0 && !purge) {
            why.add(count(h.dead()) + " dead letter" + (h.dead() == 1 ? "" : "s")
                    + " (requeue or delete them, or delete with purge=true)");
        }
        if (h.schedules() > 0) {
            why.add(h.schedules() + " schedule" + (h.schedules() == 1 ? "" : "s") + " enqueue into it (delete them first)");
        }
        if (!why.isEmpty()) {
            throw new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Queue '" + name + "' cannot be deleted: it has "
                    + String.join("; ", why) + ".");
        }
    }

    private static String count(long n) {
        return n > 1000 ? "over 1000" : Long.toString(n);
    }

    /**
     * A queue's settings changed: its due jobs may have become claimable (resumed, activated, a
     * higher cap) without any enqueue to announce them, so the due polls look now.
     */
    private QueueRow settingsChanged(QueueRow queue) {
        exists(queue.name()); // settings made the queue
        outcomes.queueChanged(queue.name(), queue.updatedAt());
        return queue;
    }

    /** {@code name} is a queue now (found, enqueued to, or given settings): never unknown again. */
    void exists(String name) {
        known.add(name);
        unknownUntil.remove(name);
    }

    /**
     * The queues among these that do not exist: no job was ever enqueued there and no settings
     * were made (most likely a mistyped name). A claim naming them finds nothing, forever; the
     * claim answer lists them, and each is logged once per instance.
     */
    public List<String> unknown(List<String> queues, String workerId) {
        if (queues == null || queues.isEmpty()) {
            return List.of();
        }
        List<String> doubtful = queues.stream().filter(q -> !known.contains(q)).distinct().toList();
        if (doubtful.isEmpty()) {
            return List.of();
        }
        List<String> unknown;
        // one look at a time: waits that end together (they began together) share it
        unknownCheck.lock();
        try {
            long now = System.nanoTime();
            List<String> ask = doubtful.stream().filter(q -> {
                Long until = unknownUntil.get(q);
                return until == null || now - until >= 0;
            }).toList();
            if (!ask.isEmpty()) {
                Set<String> found = new HashSet<>(store.queueFind(ask));
                if (known.size() > CACHE_LIMIT) {
                    known.clear();
                }
                if (unknownUntil.size() > CACHE_LIMIT) {
                    unknownUntil.clear();
                }
                for (String q : ask) {
                    if (found.contains(q)) {
                        exists(q);
                    } else {
                        unknownUntil.put(q, now + UNKNOWN_RECHECK_NANOS);
                    }
                }
            }
            unknown = doubtful.stream().filter(q -> !known.contains(q)).toList();
        } finally {
            unknownCheck.unlock();
        }
        for (String q : unknown) {
            if (loggedUnknown.size() < 10_000 && loggedUnknown.add(q)) {
                LOG.warnf("Worker %s claims from queue '%s', which does not exist (nothing was ever enqueued "
                        + "there and it has no settings); check the name", workerId, q);
            }
        }
        return unknown;
    }
}
