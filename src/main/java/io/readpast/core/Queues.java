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
 * Queues: their settings, pause and resume, and which names exist. Queues are never deleted, so
 * a name seen to exist is never asked of the database again; a name found missing is answered
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
