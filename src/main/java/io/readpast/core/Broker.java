package io.readpast.core;

import io.readpast.config.ReadpastConfig;
import io.readpast.ops.BrokerMetrics;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.NewJob;
import io.readpast.store.QueueRow;
import io.readpast.store.QueueSettings;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The job lifecycle. Every lease-bound change is a guarded statement in the store; an empty
 * result means the caller does not hold the lease, and is told apart from "no such job" by a
 * second read. Lease expiry goes through the same retry-or-dead decision as a failure.
 */
@ApplicationScoped
public class Broker {

    private static final Logger LOG = Logger.getLogger(Broker.class);

    private final JobStore store;
    private final ReadpastConfig config;
    private final JobAnnouncer announcer;
    private final BrokerMetrics metrics;
    /** Queues seen to exist; queues are never deleted, so each is asked of the database once. */
    private final java.util.Set<String> knownQueues = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /**
     * Queues found missing, with when (System.nanoTime) to ask again: an empty claim answer
     * names them from here meanwhile, so idle long-polls on a mistyped queue cost no statement
     * per answer (100 of them used to cost 3.3 transactions/s).
     */
    private final java.util.Map<String, Long> unknownUntil = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.locks.ReentrantLock unknownCheck = new java.util.concurrent.locks.ReentrantLock();
    private static final long UNKNOWN_RECHECK_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    /** Unknown queue names already logged by this instance (bounded). */
    private final java.util.Set<String> loggedUnknown = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final Timetable timetable;
    private final FinishedJobs finished;
    private final ExpirySweeper expiries;

    public Broker(JobStore store, ReadpastConfig config, JobAnnouncer announcer, BrokerMetrics metrics,
                  Timetable timetable, FinishedJobs finished, ExpirySweeper expiries) {
        this.store = store;
        this.config = config;
        this.announcer = announcer;
        this.metrics = metrics;
        this.timetable = timetable;
        this.finished = finished;
        this.expiries = expiries;
    }

    /** Counts a settled job by the state it reached. */
    private JobRow counted(JobRow job, boolean expired) {
        BrokerMetrics.Event event = switch (JobStatus.of(job)) {
            case SUCCEEDED -> BrokerMetrics.Event.COMPLETED;
            case DEAD -> BrokerMetrics.Event.DEAD;
            case CANCELLED -> BrokerMetrics.Event.CANCELLED;
            case PENDING -> expired ? BrokerMetrics.Event.EXPIRED : BrokerMetrics.Event.FAILED;
            default -> null;
        };
        if (event != null) {
            metrics.count(event, job.queue(), 1);
        }
        if (expired && event != BrokerMetrics.Event.EXPIRED) {
            metrics.count(BrokerMetrics.Event.EXPIRED, job.queue(), 1);
        }
        if (event == BrokerMetrics.Event.COMPLETED || event == BrokerMetrics.Event.DEAD) {
            finished.finished(); // its webhook, if any, is in the outbox now
        }
        return job;
    }

    /** Tells waiting claims about a job that is claimable now. */
    private JobRow announced(JobRow job) {
        try {
            announce(job);
        } catch (RuntimeException e) {
            // the write is committed: a lost wake-up only delays waiters until the next poll
            LOG.debugf("Announcing job %d failed: %s", job.id(), e.getMessage());
        }
        return job;
    }

    private void announce(JobRow job) {
        if (JobStatus.of(job) == JobStatus.PENDING) {
            if (dueNow(job)) {
                announcer.announce(job.queue(), 1);
            } else {
                announcer.scheduled(job.queue(), job.dueAt());
            }
        }
    }

    /** Due now on the database clock: the due time is not after the write's own timestamp. */
    private static boolean dueNow(JobRow job) {
        return job.dueAt() != null && job.updatedAt() != null && !job.dueAt().isAfter(job.updatedAt());
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
        NewJob job = toNewJob(r);
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                Optional<JobStore.Inserted> inserted = store.jobInsert(job);
                if (inserted.isPresent() && inserted.get().created()) {
                    queueExists(inserted.get().job().queue()); // the enqueue made its queue
                    metrics.count(BrokerMetrics.Event.ENQUEUED, inserted.get().job().queue(), 1);
                    expiries.noteExpiry(inserted.get().job().expiresAt());
                    return new Enqueued(announced(inserted.get().job()), true);
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

    /**
     * Enqueues every job in one transaction; answers in order. An item whose idempotency key is
     * held by a live job of another queue is answered with that conflict as its error.
     */
    public List<Enqueued> enqueueMany(List<NewJobRequest> requests) {
        List<NewJob> jobs = requests.stream().map(this::toNewJob).toList();
        for (int attempt = 1; ; attempt++) {
            try {
                List<JobStore.Inserted> inserted = store.jobInsertMany(jobs);
                List<Enqueued> out = new java.util.ArrayList<>(inserted.size());
                for (int k = 0; k < inserted.size(); k++) {
                    JobStore.Inserted i = inserted.get(k);
                    out.add(i.created() || i.job().queue().equals(jobs.get(k).queue())
                            ? new Enqueued(i.job(), i.created()) : new Enqueued(null, false, keyHeldElsewhere()));
                }
                java.util.Map<String, Integer> perQueue = new java.util.HashMap<>();
                java.util.Map<String, java.time.Instant> later = new java.util.HashMap<>();
                for (Enqueued e : out) {
                    if (e.created()) {
                        queueExists(e.job().queue());
                        metrics.count(BrokerMetrics.Event.ENQUEUED, e.job().queue(), 1);
                        expiries.noteExpiry(e.job().expiresAt());
                        if (dueNow(e.job())) {
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
                if (e.kind() != StoreException.Kind.DUPLICATE_KEY || attempt >= 5) {
                    throw e;
                }
                // a concurrent enqueue took one of the keys: run the batch again, it will find it
            }
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
    public void requireFutureExpiry(java.time.Instant expiresAt) {
        if (expiresAt != null && !expiresAt.isAfter(timetable.dbNowEstimate())) {
            throw BrokerException.invalid("'expiresAt' (" + expiresAt + ") is already past on the database's "
                    + "clock: the job could never start.");
        }
    }

    private NewJob toNewJob(NewJobRequest r) {
        return new NewJob(r.queue(), r.type(), r.payload(), r.tags(), r.idempotencyKey(), r.priority(),
                r.maxAttempts(), config.defaults().maxAttempts(), r.runAt(), r.delayMs(), r.createdBy(), r.webhookUrl(),
                r.expiresAt(), r.uniqueForSeconds() == null ? null : uniqueKey(r),
                r.uniqueForSeconds() == null ? 0 : r.uniqueForSeconds() * 1000, r.groupKey());
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper CANONICAL = new com.fasterxml.jackson.databind.ObjectMapper()
            .enable(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

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
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {r.queue(), r.type(), CANONICAL.writeValueAsString(payload)}) {
                md.update(part.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                md.update((byte) 0);
            }
            return "h:" + java.util.HexFormat.of().formatHex(md.digest());
        } catch (com.fasterxml.jackson.core.JsonProcessingException | java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot digest the payload", e);
        }
    }

    public JobRow get(long id) {
        return store.jobGet(id).orElseThrow(() -> BrokerException.jobNotFound(id));
    }

    /** The queue of each of these jobs, wherever each is now; ids of no job are left out. */
    public java.util.Map<Long, String> queuesOf(java.util.Collection<Long> ids) {
        return store.jobQueues(ids);
    }

    /** Leases jobs; a null lease length takes the queue's default, else the broker's. */
    public List<JobRow> claim(String workerId, List<String> queues, int limit, Integer leaseSeconds, String by) {
        long start = System.nanoTime();
        List<JobRow> jobs = store.jobClaim(workerId, queues, limit, leaseSeconds, config.defaults().leaseSeconds(), by);
        metrics.claimed(System.nanoTime() - start, jobs.size());
        leased(jobs);
        return jobs;
    }

    /** Counts claimed jobs and tells the lease sweeper when the first of their leases runs out. */
    private void leased(List<JobRow> jobs) {
        java.time.Instant first = null;
        for (JobRow j : jobs) {
            metrics.count(BrokerMetrics.Event.CLAIMED, j.queue(), 1);
            if (j.leaseExpiresAt() != null && (first == null || j.leaseExpiresAt().isBefore(first))) {
                first = j.leaseExpiresAt();
            }
        }
        if (first != null) {
            timetable.noteLeaseExpiry(first);
        }
    }

    /**
     * The queues among these that do not exist: no job was ever enqueued there and no settings
     * were made (most likely a mistyped name). A claim naming them finds nothing, forever; the
     * claim answer lists them, and each is logged once per instance.
     */
    /** {@code name} is a queue now (found, enqueued to, or given settings): never unknown again. */
    private void queueExists(String name) {
        knownQueues.add(name);
        unknownUntil.remove(name);
    }

    public List<String> unknownQueues(List<String> queues, String workerId) {
        if (queues == null || queues.isEmpty()) {
            return List.of();
        }
        List<String> doubtful = queues.stream().filter(q -> !knownQueues.contains(q)).distinct().toList();
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
                java.util.Set<String> found = new java.util.HashSet<>(store.queueFind(ask));
                if (knownQueues.size() > 100_000) {
                    knownQueues.clear();
                }
                if (unknownUntil.size() > 100_000) {
                    unknownUntil.clear();
                }
                for (String q : ask) {
                    if (found.contains(q)) {
                        queueExists(q);
                    } else {
                        unknownUntil.put(q, now + UNKNOWN_RECHECK_NANOS);
                    }
                }
            }
            unknown = doubtful.stream().filter(q -> !knownQueues.contains(q)).toList();
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

    public JobRow heartbeat(long id, String leaseId, Integer leaseSeconds, String progress) {
        return store.jobHeartbeat(id, leaseId, leaseSeconds, progress).orElseThrow(() -> lost(id));
    }

    public JobRow complete(long id, String leaseId, String result, String by) {
        Optional<JobRow> done = store.jobComplete(id, leaseId, result, by);
        return done.isPresent() ? counted(done.get(), false) : settledEarlier(id, leaseId, JobStatus.SUCCEEDED);
    }

    /** Per-item outcome of a batch completion: done (no error), or why not. */
    public record Completion(long id, BrokerException error) {
    }

    /** Completes a batch in one statement; items that were not completed are told apart afterwards. */
    public List<Completion> completeMany(List<io.readpast.store.CompleteItem> items, String by) {
        java.util.Map<Long, JobStore.Acked> done = items.isEmpty() ? java.util.Map.of() : store.jobCompleteMany(items, by);
        return completions(items, done);
    }

    /** What an ack-and-claim did: one answer per acknowledgement, and the leased jobs. */
    public record AckAndClaim(List<Completion> acks, List<JobRow> jobs) {
    }

    /**
     * Completes the acknowledged jobs and leases up to {@code limit} more, in one transaction
     * (a worker's "done with these, give me the next ones").
     */
    public AckAndClaim ackAndClaim(List<io.readpast.store.CompleteItem> acks, String workerId, List<String> queues,
                                   int limit, Integer leaseSeconds, String by) {
        if (acks.isEmpty()) {
            return new AckAndClaim(List.of(), claim(workerId, queues, limit, leaseSeconds, by));
        }
        long start = System.nanoTime();
        JobStore.AckClaimed r = store.jobAckClaim(acks, workerId, queues, limit, leaseSeconds,
                config.defaults().leaseSeconds(), by);
        metrics.claimed(System.nanoTime() - start, r.claimed().size());
        leased(r.claimed());
        return new AckAndClaim(completions(acks, r.acked()), r.claimed());
    }

    /** Answers each completion item: done in the batch, done earlier under this lease (200), or why not. */
    private List<Completion> completions(List<io.readpast.store.CompleteItem> items,
                                         java.util.Map<Long, JobStore.Acked> done) {
        done.values().forEach(a -> metrics.count(BrokerMetrics.Event.COMPLETED, a.queue(), 1));
        if (!done.isEmpty()) {
            finished.finished(); // their webhooks, if any, are in the outbox now
        }
        List<Completion> out = new java.util.ArrayList<>(items.size());
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (io.readpast.store.CompleteItem item : items) {
            // each item on its own: the one that named the lease the job was completed under
            JobStore.Acked acked = done.get(item.id());
            if (acked != null && acked.leaseId().equalsIgnoreCase(item.leaseId()) && seen.add(item.id())) {
                out.add(new Completion(item.id(), null));
            } else {
                try {
                    settledEarlier(item.id(), item.leaseId(), JobStatus.SUCCEEDED);
                    out.add(new Completion(item.id(), null));
                } catch (BrokerException e) {
                    out.add(new Completion(item.id(), e));
                }
            }
        }
        return out;
    }

    /** Gives a job back unworked; a cancel-requested job becomes CANCELLED instead. */
    public JobRow release(long id, String leaseId, String by) {
        Optional<JobRow> released = store.jobRelease(id, leaseId, by);
        if (released.isEmpty()) {
            released = store.jobCancelLeased(id, leaseId, null, false, by);
        }
        if (released.isEmpty()) {
            return settledEarlier(id, leaseId, JobStatus.CANCELLED);
        }
        JobRow job = released.get();
        metrics.count(JobStatus.of(job) == JobStatus.CANCELLED ? BrokerMetrics.Event.CANCELLED
                : BrokerMetrics.Event.RELEASED, job.queue(), 1);
        return announced(job);
    }

    /**
     * Cancels a job: PENDING becomes CANCELLED at once; LEASED or PROCESSING is flagged, and
     * becomes CANCELLED when its worker fails or releases it or the lease expires. Cancelling a
     * cancelled job is a no-op; a SUCCEEDED or DEAD job cannot be cancelled (409).
     */
    public JobRow cancel(long id, String by) {
        for (int attempt = 0; attempt < 5; attempt++) {
            Optional<JobRow> done = store.jobCancelPending(id, by);
            if (done.isPresent()) {
                LOG.infof("Job %d cancelled by %s", id, who(by));
                return counted(done.get(), false);
            }
            Optional<JobRow> flagged = store.jobCancelRequest(id, by);
            if (flagged.isPresent()) {
                LOG.infof("Cancel of running job %d requested by %s", id, who(by));
                return flagged.get();
            }
            JobRow job = get(id);
            JobStatus status = JobStatus.of(job);
            if (status == JobStatus.CANCELLED) {
                return job;
            }
            if (!status.canBecome(JobStatus.CANCELLED)) {
                throw new BrokerException(BrokerException.Kind.STATE_CONFLICT,
                        "Job " + id + " is " + status + " and can no longer be cancelled.");
            }
            // it changed state between the statements (claimed or released): try again
        }
        throw new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Job " + id + " kept changing state; retry.");
    }

    /** DEAD or CANCELLED back to PENDING with attempts reset; {@code payload} (JSON text) replaces the payload. */
    public JobRow requeue(long id, String payload, String by) {
        Optional<JobRow> requeued;
        try {
            requeued = store.jobRequeue(id, payload, by).map(this::announced);
        } catch (StoreException e) {
            if (e.kind() == StoreException.Kind.DUPLICATE_KEY) {
                throw new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Job " + id
                        + " cannot be requeued: a live job holds its idempotency key.");
            }
            throw e;
        }
        requeued.ifPresent(j -> LOG.infof("Job %d requeued by %s%s", id, who(by), payload == null ? "" : " with a new payload"));
        return requeued.orElseThrow(() -> {
            JobStatus status = JobStatus.of(get(id));
            return new BrokerException(BrokerException.Kind.STATE_CONFLICT,
                    "Job " + id + " is " + status + "; only DEAD or CANCELLED jobs can be requeued.");
        });
    }

    /** Deletes a finished job for good. */
    public void purge(long id, String by) {
        if (store.jobPurge(id)) {
            LOG.infof("Job %d deleted by %s", id, who(by));
        } else {
            JobStatus status = JobStatus.of(get(id));
            throw new BrokerException(BrokerException.Kind.STATE_CONFLICT,
                    "Job " + id + " is " + status + "; cancel it first, only finished jobs can be deleted.");
        }
    }

    public List<JobRow> list(io.readpast.store.JobFilter filter) {
        return store.jobList(filter);
    }

    public List<JobRow> deadLetters(String queue, String type, Long after, int limit) {
        return store.jobListDead(queue, type, after, limit);
    }

    /** Finished jobs per minute and queue over the last {@code minutes} minutes (database clock). */
    public JobStore.Throughput throughput(String queue, int minutes) {
        return store.jobThroughput(queue, minutes);
    }

    public List<QueueRow> queues(boolean includeInactive) {
        return store.queueList(includeInactive);
    }

    public QueueRow pause(String name, boolean paused, String by) {
        if (store.queueGet(name).isEmpty()) {
            // a typo must not make a queue: pause and resume change a queue that exists
            throw new BrokerException(BrokerException.Kind.NOT_FOUND, "No queue named '" + name + "': pause and resume "
                    + "change an existing queue; PUT /queues/" + name + " creates one (\"paused\": true to start paused).");
        }
        LOG.infof("Queue %s %s by %s", name, paused ? "paused" : "resumed", who(by));
        return settingsChanged(store.queueSetPaused(name, paused));
    }

    /**
     * A queue's settings changed: its due jobs may have become claimable (resumed, activated, a
     * higher cap) without any enqueue to announce them, so the due pollers look now.
     */
    private QueueRow settingsChanged(QueueRow queue) {
        queueExists(queue.name()); // settings made the queue
        try {
            announcer.scheduled(queue.name(), queue.updatedAt() == null ? java.time.Instant.EPOCH : queue.updatedAt());
        } catch (RuntimeException e) {
            LOG.debugf("Announcing the settings of queue %s failed: %s", queue.name(), e.getMessage());
        }
        return queue;
    }

    /**
     * The holder reports a failure: back to PENDING after a backoff (or {@code retryAfter}),
     * or DEAD when the attempts are used up or the error is not retryable.
     */
    public JobRow fail(long id, String leaseId, String error, boolean retryable, Duration retryAfter, String by) {
        JobRow job = store.jobGet(id).orElseThrow(() -> BrokerException.jobNotFound(id));
        if (job.leaseId() == null || !job.leaseId().equalsIgnoreCase(leaseId)) {
            throw BrokerException.leaseConflict(id);
        }
        if (JobStatus.of(job).terminal()) {
            return settledEarlier(id, leaseId, JobStatus.DEAD, JobStatus.CANCELLED);
        }
        Optional<JobRow> settled = settleFailure(job, error, retryable, retryAfter, false, by);
        return settled.isPresent() ? announced(counted(settled.get(), false))
                : settledEarlier(id, leaseId, JobStatus.DEAD, JobStatus.CANCELLED);
    }

    /**
     * One pass of the lease sweeper: every job whose lease expired goes back to PENDING (or
     * DEAD) through the failure path. Safe on every instance at once: each change is guarded by
     * lease id and expiry, so only one instance settles a given lease.
     *
     * @return how many jobs this pass settled
     */
    public int expireLeases(int batch) {
        int settled = 0;
        JobStore.ExpiredLeases found = store.jobListExpired(batch);
        timetable.observedDbNow(found.dbNow());
        if (found.nextExpiry() != null) {
            timetable.noteLeaseExpiry(found.nextExpiry());
        }
        for (JobRow job : found.expired()) {
            String error = "lease expired" + (job.workerId() == null ? "" : " (worker " + job.workerId() + ")");
            try {
                Optional<JobRow> settledJob = settleFailure(job, error, true, null, true, null);
                if (settledJob.isPresent()) {
                    announced(counted(settledJob.get(), true));
                    settled++;
                }
            } catch (RuntimeException e) {
                LOG.warnf("Could not return expired job %d: %s", job.id(), e.getMessage());
            }
        }
        if (settled > 0) {
            LOG.debugf("Lease sweeper returned %d expired jobs", settled);
        }
        return settled;
    }

    /**
     * The one way out of a lease that did not succeed (failure report or expiry): CANCELLED
     * when a cancel was requested, DEAD when attempts are used up or the error is fatal, else
     * back to PENDING after the queue's (or the broker's) backoff.
     */
    private Optional<JobRow> settleFailure(JobRow job, String error, boolean retryable, Duration retryAfter,
                                           boolean expiredOnly, String by) {
        if (job.cancelRequested()) {
            return store.jobCancelLeased(job.id(), job.leaseId(), error, expiredOnly, by);
        }
        boolean dead = !retryable || job.attempt() >= job.maxAttempts();
        if (dead) {
            Optional<JobRow> killed = store.jobKill(job.id(), job.leaseId(), error, expiredOnly, by);
            // a cancel may have been requested since the job was read: it ends CANCELLED, not DEAD
            return killed.isPresent() ? killed
                    : store.jobCancelLeased(job.id(), job.leaseId(), error, expiredOnly, by);
        }
        Duration base = job.queueBackoffBaseMs() != null
                ? Duration.ofMillis(job.queueBackoffBaseMs()) : config.defaults().backoffBase();
        Duration cap = job.queueBackoffCapMs() != null
                ? Duration.ofMillis(job.queueBackoffCapMs()) : config.defaults().backoffCap();
        long delayMs = retryAfter != null ? retryAfter.toMillis() : RetryPolicy.delayMs(job.attempt(), base, cap);
        Optional<JobRow> retried = store.jobRetry(job.id(), job.leaseId(), delayMs, error, expiredOnly, by);
        if (retried.isEmpty()) {
            // a cancel may have been requested since the job was read
            retried = store.jobCancelLeased(job.id(), job.leaseId(), error, expiredOnly, by);
        }
        return retried;
    }

    public QueueRow putQueue(QueueSettings settings, String by) {
        LOG.infof("Queue %s set by %s: %s", settings.name(), who(by), settings);
        return settingsChanged(store.queueUpsert(settings));
    }

    /** The acting key for audit lines; "anonymous" when authentication is off. */
    private static String who(String by) {
        return by == null ? "anonymous" : by;
    }

    public QueueRow getQueue(String name) {
        return store.queueGet(name)
                .orElseThrow(() -> new BrokerException(BrokerException.Kind.NOT_FOUND, "No queue named '" + name + "'."));
    }

    /**
     * A guarded change found nothing. When the job already finished in one of {@code outcomes}
     * under this very lease, the caller's earlier call took effect and only its answer was lost
     * (a dropped connection, a 503 after the commit): answer with the job, as that call would
     * have. Otherwise the job is gone (404) or the caller does not hold the lease (409).
     */
    private JobRow settledEarlier(long id, String leaseId, JobStatus... outcomes) {
        JobRow job = store.jobGet(id).orElseThrow(() -> BrokerException.jobNotFound(id));
        JobStatus status = JobStatus.of(job);
        if (status.terminal() && job.leaseId() != null && job.leaseId().equalsIgnoreCase(leaseId)
                && java.util.Arrays.asList(outcomes).contains(status)) {
            return job;
        }
        throw BrokerException.leaseConflict(id);
    }

    /** A guarded change found nothing: the job is gone (404) or the caller lost the lease (409). */
    private BrokerException lost(long id) {
        return store.jobGet(id).isPresent() ? BrokerException.leaseConflict(id) : BrokerException.jobNotFound(id);
    }

    /**
     * A validated enqueue; {@code payload} and {@code tags} are JSON text; {@code webhookUrl} the
     * job's own completion webhook (null: the queue's); {@code expiresAt} when it may no longer
     * start (null: never); {@code uniqueForSeconds} its uniqueness window (null: none);
     * {@code groupKey} its ordered group in the queue (null: none).
     */
    public record NewJobRequest(String queue, String type, String payload, String tags, String idempotencyKey,
                                int priority, Integer maxAttempts, java.time.Instant runAt, long delayMs,
                                String createdBy, String webhookUrl, java.time.Instant expiresAt,
                                Long uniqueForSeconds, String groupKey) {
    }
}
