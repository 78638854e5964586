package io.readpast.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.NewJob;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Enqueues: one job or a batch, with idempotency keys, uniqueness windows and groups. */
@ApplicationScoped
public class Enqueuer {

    private static final Logger LOG = Logger.getLogger(Enqueuer.class);
    /** Tries of an enqueue that keeps racing another one for the same key. */
    private static final int TRIES = 5;

    private final JobStore store;
    private final ReadpastConfig config;
    private final JobOutcomes outcomes;
    private final JobAnnouncer announcer;
    private final Queues queues;
    private final Timetable timetable;
    private final TimersTask timers;
    /** Enqueues of plain jobs (no uniqueFor, no group) from concurrent requests: one insert for all. */
    private final Coalescer<List<NewJobRequest>, List<Enqueued>> merged;

    public Enqueuer(JobStore store, ReadpastConfig config, JobOutcomes outcomes, JobAnnouncer announcer, Queues queues,
                    Timetable timetable, TimersTask timers, MergeStats stats) {
        this.store = store;
        this.config = config;
        this.outcomes = outcomes;
        this.announcer = announcer;
        this.queues = queues;
        this.timetable = timetable;
        this.timers = timers;
        this.merged = new Coalescer<>(this::enqueueRequests, List::size, config.limits().batchMax(),
                config.merging().lanes(), n -> stats.ran(MergeStats.Kind.ENQUEUES, n));
    }

    /**
     * Enqueues the jobs of one request, in one insert with those of the requests that arrive
     * while the previous insert is in flight (readpast.merging.enqueues; one announcement per
     * queue for all of them). Answers as {@link #enqueueMany} does, item by item; an idempotency
     * key given twice answers the second like a duplicate, inside one insert as across two.
     * Jobs with a uniqueness window or an ordered group go alone, as {@link #enqueueMany} takes them.
     */
    public List<Enqueued> enqueueMerged(List<NewJobRequest> requests) {
        if (!mergesEnqueues()
                || requests.stream().anyMatch(r -> r.uniqueForSeconds() != null || r.groupKey() != null)) {
            return enqueueMany(requests);
        }
        return merged.submit(requests);
    }

    /** Whether enqueues merge: the setting, where the store can (not on Babelfish). */
    private boolean mergesEnqueues() {
        return config.merging().enqueues() && store.mergesEnqueues();
    }

    /** The statement of merged enqueues: every request's jobs in one enqueueMany, answered per request. */
    private List<List<Enqueued>> enqueueRequests(List<List<NewJobRequest>> requests) {
        if (requests.size() == 1) {
            return List.of(enqueueMany(requests.get(0)));
        }
        List<NewJobRequest> all = new ArrayList<>();
        requests.forEach(all::addAll);
        List<Enqueued> done = enqueueMany(all);
        List<List<Enqueued>> out = new ArrayList<>(requests.size());
        int at = 0;
        for (List<NewJobRequest> r : requests) {
            out.add(done.subList(at, at + r.size()));
            at += r.size();
        }
        return out;
    }


    /**
     * A validated enqueue; {@code payload} and {@code tags} are JSON text; {@code webhookUrl} the
     * job's own completion webhook (null: the queue's); {@code expiresAt} when it may no longer
     * start (null: never); {@code uniqueForSeconds} its uniqueness window (null: none);
     * {@code groupKey} its ordered group in the queue (null: none); {@code trace} the W3C trace
     * context the enqueue carried (null: none); {@code fairnessKey} the key a fair queue serves in
     * turn with the others (null: none); {@code timeoutSeconds} the most it may run, from its claim
     * on (null: no limit); {@code retryPolicy} its own retry backoff, JSON text (null: its queue's).
     */
    public record NewJobRequest(String queue, String type, String payload, String tags, String idempotencyKey,
                                int priority, Integer maxAttempts, Instant runAt, long delayMs,
                                String createdBy, String webhookUrl, Instant expiresAt,
                                Long uniqueForSeconds, String groupKey, TraceContext trace, String fairnessKey,
                                Integer timeoutSeconds, String retryPolicy) {

        /** A request with its queue's retry backoff. */
        public NewJobRequest(String queue, String type, String payload, String tags, String idempotencyKey,
                             int priority, Integer maxAttempts, Instant runAt, long delayMs, String createdBy,
                             String webhookUrl, Instant expiresAt, Long uniqueForSeconds, String groupKey,
                             TraceContext trace, String fairnessKey, Integer timeoutSeconds) {
            this(queue, type, payload, tags, idempotencyKey, priority, maxAttempts, runAt, delayMs, createdBy,
                    webhookUrl, expiresAt, uniqueForSeconds, groupKey, trace, fairnessKey, timeoutSeconds, null);
        }

        /** A request with no time limit. */
        public NewJobRequest(String queue, String type, String payload, String tags, String idempotencyKey,
                             int priority, Integer maxAttempts, Instant runAt, long delayMs, String createdBy,
                             String webhookUrl, Instant expiresAt, Long uniqueForSeconds, String groupKey,
                             TraceContext trace, String fairnessKey) {
            this(queue, type, payload, tags, idempotencyKey, priority, maxAttempts, runAt, delayMs, createdBy,
                    webhookUrl, expiresAt, uniqueForSeconds, groupKey, trace, fairnessKey, null, null);
        }

        /** A request with no fairness key. */
        public NewJobRequest(String queue, String type, String payload, String tags, String idempotencyKey,
                             int priority, Integer maxAttempts, Instant runAt, long delayMs, String createdBy,
                             String webhookUrl, Instant expiresAt, Long uniqueForSeconds, String groupKey,
                             TraceContext trace) {
            this(queue, type, payload, tags, idempotencyKey, priority, maxAttempts, runAt, delayMs, createdBy,
                    webhookUrl, expiresAt, uniqueForSeconds, groupKey, trace, null);
        }

        /** A request with no trace context. */
        public NewJobRequest(String queue, String type, String payload, String tags, String idempotencyKey,
                             int priority, Integer maxAttempts, Instant runAt, long delayMs, String createdBy,
                             String webhookUrl, Instant expiresAt, Long uniqueForSeconds, String groupKey) {
            this(queue, type, payload, tags, idempotencyKey, priority, maxAttempts, runAt, delayMs, createdBy,
                    webhookUrl, expiresAt, uniqueForSeconds, groupKey, null, null);
        }
    }

    /**
     * The outcome of an enqueue: the job, and whether it was created or already existed
     * (idempotency key); or, in a batch, the {@code error} that refused this item (no job).
     */
    public record Enqueued(JobRow job, boolean created, BrokerException error) {
        Enqueued(JobRow job, boolean created) {
            this(job, created, null);
        }
    }

    /**
     * Enqueues a job. With an idempotency key held by a live job, or a uniqueness key held within
     * its uniqueFor window, returns that job instead (created false); concurrent identical
     * enqueues make exactly one job.
     */
    public Enqueued enqueue(NewJobRequest r) {
        if (mergesEnqueues() && r.uniqueForSeconds() == null && r.groupKey() == null) {
            Enqueued e = enqueueMerged(List.of(r)).get(0);
            if (e.error() != null) {
                throw e.error();
            }
            return e;
        }
        NewJob job = toNewJob(r);
        for (int attempt = 0; attempt < TRIES; attempt++) {
            try {
                Optional<JobStore.Inserted> inserted = store.jobInsert(job);
                if (inserted.isPresent() && inserted.get().created()) {
                    created(inserted.get().job());
                    return new Enqueued(outcomes.announced(inserted.get().job()), true);
                }
                if (inserted.isPresent()) {
                    return new Enqueued(sameQueue(inserted.get().job(), r.queue()), false);
                }
            } catch (StoreException e) {
                if (e.kind() != StoreException.Kind.DUPLICATE_KEY) {
                    throw e;
                }
                // a concurrent enqueue with the same key won: read its job below
            }
            Optional<JobRow> existing = r.idempotencyKey() == null ? Optional.empty()
                    : store.jobGetByKey(r.idempotencyKey());
            if (existing.isPresent()) {
                return new Enqueued(sameQueue(existing.get(), r.queue()), false);
            }
            // the holder finished in between: the key is free again, insert
        }
        throw new StoreException(StoreException.Kind.TRANSIENT, "idempotent enqueue kept racing", null);
    }

    /** A debounce: the key, in its queue, and the window's length. */
    public record Debounce(String key, long seconds) {
    }

    /**
     * Enqueues a debounced job ({@code r} due when the window ends): the first enqueue with the
     * key opens a window and creates the job (created true); a later one inside the window
     * replaces that job's payload and priority (created false), unless a worker holds it already
     * or it has finished, when this one opens a new window. Same-key enqueues take the key's row
     * in turn, so each window has one job however many enqueues race.
     */
    public Enqueued enqueueDebounced(NewJobRequest r, Debounce debounce) {
        NewJob job = toNewJob(r);
        JobStore.Inserted done = null;
        for (int attempt = 1; done == null; attempt++) {
            try {
                done = store.jobInsertDebounced(job, debounceKey(r.queue(), debounce.key()), debounce.seconds() * 1000);
            } catch (StoreException e) {
                // a racing first enqueue of the key inserted it before this one could (an engine
                // without key-range locks lets both try: Babelfish): its window is open now, and
                // the next try joins it
                if (e.kind() != StoreException.Kind.DUPLICATE_KEY || attempt >= TRIES) {
                    throw e;
                }
            }
        }
        if (done.created()) {
            created(done.job());
        } else {
            LOG.debugf("Enqueue debounced into job %d (key %s)", done.job().id(), debounce.key());
        }
        return new Enqueued(outcomes.announced(done.job()), done.created());
    }

    /** The uniqueness key a debounce window holds: "d:" and a digest of queue and key (fits any key). */
    static String debounceKey(String queue, String key) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(queue.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update(key.getBytes(StandardCharsets.UTF_8));
            return "d:" + HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256", e);
        }
    }

    /**
     * Enqueues every job in one transaction; answers in order. An item whose idempotency key is
     * held by a live job of another queue is answered with that conflict as its error.
     */
    public List<Enqueued> enqueueMany(List<NewJobRequest> requests) {
        List<NewJob> jobs = requests.stream().map(this::toNewJob).toList();
        for (int attempt = 1; ; attempt++) {
            try {
                List<JobStore.Inserted> inserted = store.jobInsertMany(jobs);
                List<Enqueued> out = new ArrayList<>(inserted.size());
                for (int k = 0; k < inserted.size(); k++) {
                    JobStore.Inserted i = inserted.get(k);
                    out.add(i.created() || i.job().queue().equals(jobs.get(k).queue())
                            ? new Enqueued(i.job(), i.created()) : new Enqueued(null, false, keyHeldElsewhere()));
                }
                Map<String, Integer> perQueue = new HashMap<>();
                Map<String, Instant> later = new HashMap<>();
                for (Enqueued e : out) {
                    if (e.created()) {
                        created(e.job());
                        if (JobOutcomes.dueNow(e.job())) {
                            perQueue.merge(e.job().queue(), 1, Integer::sum);
                        } else {
                            later.merge(e.job().queue(), e.job().dueAt(), (a, b) -> a.isBefore(b) ? a : b);
                        }
                    }
                }
                try {
                    perQueue.forEach(announcer::announce);
                    later.forEach(announcer::scheduled);
                } catch (RuntimeException e) {
                    LOG.debugf("Announcing a batch failed: %s", e.getMessage());
                }
                return out;
            } catch (StoreException e) {
                if (e.kind() != StoreException.Kind.DUPLICATE_KEY || attempt >= TRIES) {
                    throw e;
                }
                // a concurrent enqueue took one of the keys: run the batch again, it will find it
            }
        }
    }

    void created(JobRow job) {
        queues.exists(job.queue()); // the enqueue made its queue
        outcomes.events().count(JobEvents.Event.ENQUEUED, job.queue(), 1);
        if (job.expiresAt() != null) {
            timers.wakeAt(job.expiresAt()); // the expiry task looks then
        }
        long waitLimitMs = JobExpiry.waitLimitMs(config);
        if (job.status() == 7 && waitLimitMs > 0 && job.createdAt() != null) {
            timers.wakeAt(job.createdAt().plusMillis(waitLimitMs)); // a WAITING job's wait limit
        }
    }

    /**
     * Idempotency keys are global; a key held by a live job of another queue is a conflict,
     * answered without that job (the caller may not be allowed to see that queue).
     */
    private static JobRow sameQueue(JobRow existing, String queue) {
        if (!existing.queue().equals(queue)) {
            throw keyHeldElsewhere();
        }
        return existing;
    }

    private static BrokerException keyHeldElsewhere() {
        return new BrokerException(BrokerException.Kind.STATE_CONFLICT,
                "This idempotency key is held by a live job of another queue.");
    }

    /**
     * Refuses an expiresAt that is already past on the database's clock (as this instance knows
     * it): such a job would be DEAD before any worker saw it, so its 201 PENDING would lie.
     */
    public void requireFutureExpiry(Instant expiresAt) {
        if (expiresAt != null && !expiresAt.isAfter(timetable.dbNowEstimate())) {
            throw BrokerException.invalid("'expiresAt' (" + expiresAt + ") is already past on the database's "
                    + "clock: the job could never start.");
        }
    }

    NewJob toNewJob(NewJobRequest r) {
        return new NewJob(r.queue(), r.type(), r.payload(), r.tags(), r.idempotencyKey(), r.priority(),
                r.maxAttempts(), config.defaults().maxAttempts(), r.runAt(), r.delayMs(), r.createdBy(), r.webhookUrl(),
                r.expiresAt(), r.uniqueForSeconds() == null ? null : uniqueKey(r),
                r.uniqueForSeconds() == null ? 0 : r.uniqueForSeconds() * 1000, r.groupKey(),
                r.trace() == null ? null : r.trace().traceparent(), r.trace() == null ? null : r.trace().tracestate(),
                r.fairnessKey(), r.timeoutSeconds(), r.retryPolicy());
    }

    private static final ObjectMapper CANONICAL = new ObjectMapper()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /**
     * The uniqueness key of a uniqueFor enqueue: its idempotency key when it has one ("k:" +
     * key, global like idempotency keys), else a digest of queue, type and payload ("h:" +
     * SHA-256 hex; object members in any order count as the same payload).
     */
    static String uniqueKey(NewJobRequest r) {
        if (r.idempotencyKey() != null) {
            return "k:" + r.idempotencyKey();
        }
        try {
            Object payload = CANONICAL.readValue(r.payload(), Object.class);
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {r.queue(), r.type(), CANONICAL.writeValueAsString(payload)}) {
                md.update(part.getBytes(StandardCharsets.UTF_8));
                md.update((byte) 0);
            }
            return "h:" + HexFormat.of().formatHex(md.digest());
        } catch (JsonProcessingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot digest the payload", e);
        }
    }
}
