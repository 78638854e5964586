package io.readpast.core;

import io.readpast.config.ReadpastConfig;
import io.readpast.store.ClaimParams;
import io.readpast.store.CompleteItem;
import io.readpast.store.HeartbeatItem;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.LeaseEnd;
import io.readpast.store.LeaseRef;
import io.readpast.store.ReleaseItem;
import io.readpast.store.RetryItem;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The lease lifecycle: claim, heartbeat, complete (one or a batch, or with the next claim), fail,
 * release, and lease expiry. Every lease-bound change is a guarded statement in the store; an
 * empty result means the caller does not hold the lease, and is told apart from "no such job" by
 * a second read. Lease expiry goes through the same retry-or-dead decision as a failure.
 */
@ApplicationScoped
public class Leases {

    private static final Logger LOG = Logger.getLogger(Leases.class);

    private final JobStore store;
    private final ReadpastConfig config;
    private final JobOutcomes outcomes;
    private final Timetable timetable;

    private final MergeStats stats;

    public Leases(JobStore store, ReadpastConfig config, JobOutcomes outcomes, Timetable timetable, MergeStats stats) {
        this.stats = stats;
        this.store = store;
        this.config = config;
        this.outcomes = outcomes;
        this.timetable = timetable;
    }

    /** readpast.merging.acks, where the store can merge them (not on Babelfish: JobStore.mergesAcks). */
    private boolean mergesAcks() {
        return config.merging().acks() && store.mergesAcks();
    }

    /** Per-item outcome of a batch completion: done (no error), or why not. */
    public record Completion(long id, BrokerException error) {
    }

    /**
     * What an ack-and-claim did: one answer per acknowledgement, and the leased jobs;
     * {@code contended} as in {@link JobStore.AckClaimed}: a capped queue with room was held by
     * another claim, so claiming again a moment later may find jobs with nothing announced.
     */
    public record AckAndClaim(List<Completion> acks, List<JobRow> jobs, boolean contended) {
        public AckAndClaim(List<Completion> acks, List<JobRow> jobs) {
            this(acks, jobs, false);
        }
    }

    /**
     * Completes the acknowledged jobs (maybe none) and leases up to {@code limit} more of
     * {@code queues} (null: every queue) and {@code types} (null: every type), in one
     * transaction (a worker's "done with these, give me the next ones"); a null lease length
     * takes the queue's default, else the broker's.
     */
    public AckAndClaim ackAndClaim(List<CompleteItem> acks, String workerId, List<String> queues, List<String> types,
                                   int limit, Integer leaseSeconds, String by) {
        if (config.merging().claims()) {
            return merged(acks, workerId, queues, types, limit, leaseSeconds, by);
        }
        long start = System.nanoTime();
        JobStore.AckClaimed r = store.jobAckClaim(acks, claimParams(workerId, queues, types, limit, leaseSeconds, by));
        outcomes.leased(System.nanoTime() - start, r.claimed());
        return new AckAndClaim(acks.isEmpty() ? List.of() : completions(acks, r.acked()), r.claimed(), r.contended());
    }

    /** A claim (with its acks, maybe none) waiting to go into a merged statement. */
    private record Merged(List<CompleteItem> acks, ClaimParams claim) {
    }

    /** Past this many queue-and-type sets, the merging lines start again (a client making up sets must not grow them). */
    private static final int LINES_MAX = 10_000;
    private final java.util.concurrent.ConcurrentHashMap<String, Coalescer<Merged, JobStore.AckClaimed>> lines =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A claim merged with the others of its queues, types and key that arrive while a claim of
     * theirs is in flight (readpast.merging.claims): one statement for all, each its own slice.
     */
    private AckAndClaim merged(List<CompleteItem> acks, String workerId, List<String> queues, List<String> types,
                               int limit, Integer leaseSeconds, String by) {
        String key = (queues == null ? "*" : String.join("\u0000", queues)) + "\u0001"
                + (types == null ? "*" : String.join("\u0000", types)) + "\u0001" + by;
        if (lines.size() > LINES_MAX) {
            lines.clear();
        }
        Coalescer<Merged, JobStore.AckClaimed> line = lines.computeIfAbsent(key, k -> new Coalescer<>(
                batch -> store.jobClaimMerged(batch.stream().map(Merged::acks).toList(),
                        batch.stream().map(Merged::claim).toList()),
                m -> m.claim().limit(), config.limits().claimMax(), config.db().claimConcurrency(),
                n -> stats.ran(MergeStats.Kind.CLAIMS, n)));
        long start = System.nanoTime();
        JobStore.AckClaimed r = line.submit(new Merged(acks, claimParams(workerId, queues, types, limit, leaseSeconds,
                by)));
        outcomes.leased(System.nanoTime() - start, r.claimed());
        if (acks.isEmpty()) {
            return new AckAndClaim(List.of(), r.claimed(), r.contended());
        }
        // the acks done are those of every merged claim: this claim's own, to answer and count
        return new AckAndClaim(completions(acks, own(acks, r.acked())), r.claimed(), r.contended());
    }

    /** Of the acks a merged statement did, those of these items. */
    private static Map<Long, JobStore.Acked> own(List<CompleteItem> items, Map<Long, JobStore.Acked> done) {
        Map<Long, JobStore.Acked> mine = new java.util.HashMap<>();
        for (CompleteItem i : items) {
            JobStore.Acked a = done.get(i.id());
            if (a != null) {
                mine.put(i.id(), a);
            }
        }
        return mine;
    }

    private ClaimParams claimParams(String workerId, List<String> queues, List<String> types, int limit,
                                    Integer leaseSeconds, String by) {
        return new ClaimParams(workerId, queues, types, limit, leaseSeconds, config.defaults().leaseSeconds(), by);
    }

    public JobRow heartbeat(long id, String leaseId, Integer leaseSeconds, String progress) {
        return store.jobHeartbeat(new LeaseRef(id, leaseId), leaseSeconds, progress).orElseThrow(() -> lost(id));
    }

    /** A heartbeat's answer: the job, its state (PROCESSING), when its lease now runs out, and whether cancel was asked. */
    public record Beat(long id, JobStatus status, java.time.Instant leaseExpiresAt, boolean cancelRequested) {
    }

    /**
     * A single heartbeat, merged with the heartbeats (single and batch) that arrive while one is
     * in flight (readpast.merging.acks): the same answers as {@link #heartbeat}, 404 and 409 too.
     */
    public Beat beat(long id, String leaseId, Integer leaseSeconds, String progress) {
        if (!mergesAcks()) {
            JobRow row = heartbeat(id, leaseId, leaseSeconds, progress);
            return new Beat(row.id(), JobStatus.of(row), row.leaseExpiresAt(), row.cancelRequested());
        }
        Heartbeat h = heartbeatMany(List.of(new HeartbeatItem(id, leaseId, leaseSeconds, progress))).get(0);
        if (h.error() != null) {
            throw h.error();
        }
        return new Beat(id, JobStatus.PROCESSING, h.extended().leaseExpiresAt(), h.extended().cancelRequested());
    }

    /** Heartbeats of concurrent requests, one statement for all (readpast.merging.acks). */
    private Coalescer<List<HeartbeatItem>, Map<Long, JobStore.Extended>> heartbeats;

    private synchronized Coalescer<List<HeartbeatItem>, Map<Long, JobStore.Extended>> heartbeatLine() {
        if (heartbeats == null) {
            heartbeats = ackLine(store::jobHeartbeatMany);
        }
        return heartbeats;
    }

    private Map<Long, JobStore.Extended> extend(List<HeartbeatItem> items) {
        return mergesAcks() ? heartbeatLine().submit(items) : store.jobHeartbeatMany(items);
    }

    /**
     * A merging line of acknowledgements (readpast.merging.acks): the items of the requests that
     * meet in it go into one {@code statement}, and every request is answered with the same map,
     * from which it reads its own items.
     */
    private <I, R> Coalescer<List<I>, R> ackLine(java.util.function.Function<List<I>, R> statement) {
        return new Coalescer<>(requests -> {
            List<I> all = new ArrayList<>();
            requests.forEach(all::addAll);
            return java.util.Collections.nCopies(requests.size(), statement.apply(all));
        }, List::size, Integer.MAX_VALUE, config.merging().lanes(), n -> stats().ran(MergeStats.Kind.ACKS, n));
    }

    /** {@link #ackLine} of one key's requests ({@code by}, which the statement records), made on first use. */
    private <I, R> Coalescer<List<I>, R> ackLine(java.util.concurrent.ConcurrentHashMap<String, Coalescer<List<I>, R>> lines,
                                                String by, java.util.function.BiFunction<List<I>, String, R> statement) {
        if (lines.size() > LINES_MAX) {
            lines.clear();
        }
        return lines.computeIfAbsent(by == null ? "" : by, k -> ackLine(items -> statement.apply(items, by)));
    }

    /** Batch completions of concurrent requests of one key, one statement for all (readpast.merging.acks). */
    private final java.util.concurrent.ConcurrentHashMap<String, Coalescer<List<CompleteItem>, Map<Long, JobStore.Acked>>>
            completing = new java.util.concurrent.ConcurrentHashMap<>();

    private Map<Long, JobStore.Acked> completeAll(List<CompleteItem> items, String by) {
        if (!mergesAcks()) {
            return store.jobCompleteMany(items, by);
        }
        return ackLine(completing, by, store::jobCompleteMany).submit(items);
    }

    private MergeStats stats() {
        return stats;
    }

    /** Per-item outcome of a batch heartbeat: the extended lease, or why not (404, 409). */
    public record Heartbeat(long id, JobStore.Extended extended, BrokerException error) {
    }

    /**
     * Extends every held lease of a batch in one statement; the rest are told apart with one
     * more (the job is gone: 404; the lease is not held: 409).
     */
    public List<Heartbeat> heartbeatMany(List<HeartbeatItem> items) {
        Map<Long, JobStore.Extended> done = items.isEmpty() ? Map.of() : extend(items);
        List<Long> missed = new ArrayList<>();
        for (HeartbeatItem item : items) {
            if (!extendedBy(done.get(item.id()), item)) {
                missed.add(item.id());
            }
        }
        Map<Long, String> existing = missed.isEmpty() ? Map.of() : store.jobQueues(missed);
        List<Heartbeat> out = new ArrayList<>(items.size());
        for (HeartbeatItem item : items) {
            JobStore.Extended e = done.get(item.id());
            if (extendedBy(e, item)) {
                out.add(new Heartbeat(item.id(), e, null));
            } else {
                out.add(new Heartbeat(item.id(), null, existing.containsKey(item.id())
                        ? BrokerException.leaseConflict(item.id()) : BrokerException.jobNotFound(item.id())));
            }
        }
        return out;
    }

    private static boolean extendedBy(JobStore.Extended e, HeartbeatItem item) {
        return e != null && e.leaseId().equalsIgnoreCase(item.leaseId());
    }

    /**
     * A single completion. With readpast.merging.acks, completions that arrive while one is in
     * flight go into one statement (job_complete_rows), each answered with its own job's row;
     * jobs of a batch or with dependents go together into one more, in a transaction that
     * settles them. A lease neither found held is told apart as unmerged: done earlier under
     * this lease (200), 409, 404.
     */
    public JobRow complete(long id, String leaseId, String result, String by) {
        Optional<JobRow> done;
        if (mergesAcks()) {
            done = Optional.ofNullable(singleCompletions(by).submit(new CompleteItem(id, leaseId, result)));
        } else {
            done = store.jobComplete(new LeaseRef(id, leaseId), result, by);
        }
        return done.isPresent() ? outcomes.counted(done.get(), false) : settledEarlier(id, leaseId, JobStatus.SUCCEEDED);
    }

    /** Single completions of concurrent requests of one key, one statement for all (readpast.merging.acks). */
    private final java.util.concurrent.ConcurrentHashMap<String, Coalescer<CompleteItem, JobRow>> completingOne =
            new java.util.concurrent.ConcurrentHashMap<>();

    private Coalescer<CompleteItem, JobRow> singleCompletions(String by) {
        if (completingOne.size() > LINES_MAX) {
            completingOne.clear();
        }
        return completingOne.computeIfAbsent(by == null ? "" : by, k -> new Coalescer<>(items -> {
            Map<Long, JobRow> rows = store.jobCompleteRows(items, by);
            // each row to the first item that named its job and lease; a repeat gets none and is
            // told apart on the single path (done earlier under this lease: 200, counted once)
            List<JobRow> out = new ArrayList<>(items.size());
            for (CompleteItem item : items) {
                JobRow row = rows.get(item.id());
                if (row != null && row.leaseId() != null && row.leaseId().equalsIgnoreCase(item.leaseId())) {
                    rows.remove(item.id());
                    out.add(row);
                } else {
                    out.add(null);
                }
            }
            return out;
        }, item -> 1, Integer.MAX_VALUE, config.merging().lanes(), n -> stats().ran(MergeStats.Kind.ACKS, n)));
    }

    /** Completes a batch in one statement; items that were not completed are told apart afterwards. */
    public List<Completion> completeMany(List<CompleteItem> items, String by) {
        Map<Long, JobStore.Acked> done = items.isEmpty() ? Map.of() : completeAll(items, by);
        // the acks done are those of every merged request: this request's own, to answer and count
        return completions(items, own(items, done));
    }

    /** Answers each completion item: done in the batch, done earlier under this lease (200), or why not. */
    private List<Completion> completions(List<CompleteItem> items, Map<Long, JobStore.Acked> done) {
        outcomes.completed(done.values().stream().map(JobStore.Acked::queue).toList());
        List<Completion> out = new ArrayList<>(items.size());
        Set<Long> seen = new HashSet<>();
        for (CompleteItem item : items) {
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

    /**
     * Gives back jobs leased to a client that went away before it was answered: released at
     * once (no attempt spent), in their place in line, in one statement; one whose lease is
     * already gone is left.
     */
    public void giveBack(List<JobRow> jobs, String by) {
        List<ReleaseItem> items = new ArrayList<>(jobs.size());
        for (JobRow job : jobs) {
            items.add(new ReleaseItem(job.id(), job.leaseId(), 0));
        }
        int given = 0;
        for (Ended r : releaseMany(items, by)) {
            if (r.error() == null) {
                given++;
            } else {
                LOG.debugf("Job %d leased to a client that went away could not be given back: %s", r.id(),
                        r.error().getMessage());
            }
        }
        LOG.debugf("Gave back %d of %d jobs leased to a client that went away", given, jobs.size());
    }

    /**
     * Gives a job back unworked, due again at once in its place in line or after {@code delay}
     * (null or zero: at once); a cancel-requested job becomes CANCELLED instead.
     */
    public JobRow release(long id, String leaseId, Duration delay, String by) {
        Ended r = releaseMany(List.of(new ReleaseItem(id, leaseId, delay == null ? 0 : delay.toMillis())), by).get(0);
        if (r.error() != null) {
            throw r.error();
        }
        return r.job();
    }

    /**
     * Per-item outcome of a release or a failure report: the job as it is now (PENDING, DEAD or
     * CANCELLED), or why not (404, 409).
     */
    public record Ended(long id, JobRow job, BrokerException error) {
    }

    /**
     * Gives back every item in one statement (merged with the releases, single and batch, that
     * arrive while one is in flight: readpast.merging.acks); an item it did not release goes on
     * alone, as the single release does: a cancel-requested job becomes CANCELLED, a job released
     * or finished earlier under this lease is told apart (409, 404).
     */
    public List<Ended> releaseMany(List<ReleaseItem> items, String by) {
        Map<Long, JobStore.Released> done;
        if (items.isEmpty()) {
            done = Map.of();
        } else if (mergesAcks()) {
            done = ackLine(releasing, by, store::jobReleaseMany).submit(items);
        } else {
            // unmerged: each item by the single release's statement, one after another
            Map<Long, JobStore.Released> one = new java.util.HashMap<>();
            for (ReleaseItem item : items) {
                store.jobRelease(new LeaseRef(item.id(), item.leaseId()), item.delayMs(), by)
                        .ifPresent(job -> one.putIfAbsent(item.id(), new JobStore.Released(job, item.leaseId())));
            }
            done = one;
        }
        List<Ended> out = new ArrayList<>(items.size());
        Set<Long> seen = new HashSet<>();
        for (ReleaseItem item : items) {
            JobStore.Released r = done.get(item.id());
            try {
                JobRow job;
                if (r != null && r.releasedLease().equalsIgnoreCase(item.leaseId()) && seen.add(item.id())) {
                    job = r.job();
                } else {
                    LeaseEnd end = new LeaseEnd(item.id(), item.leaseId(), null, false, by);
                    Optional<JobRow> cancelled = store.jobCancelLeased(end);
                    job = cancelled.isPresent() ? cancelled.get()
                            : settledEarlier(item.id(), item.leaseId(), JobStatus.CANCELLED);
                }
                outcomes.events().count(JobStatus.of(job) == JobStatus.CANCELLED ? JobEvents.Event.CANCELLED
                        : JobEvents.Event.RELEASED, job.queue(), 1);
                out.add(new Ended(item.id(), outcomes.announced(job), null));
            } catch (BrokerException e) {
                out.add(new Ended(item.id(), null, e));
            }
        }
        return out;
    }

    /** Releases of concurrent requests of one key, one statement for all (readpast.merging.acks). */
    private final java.util.concurrent.ConcurrentHashMap<String, Coalescer<List<ReleaseItem>, Map<Long, JobStore.Released>>>
            releasing = new java.util.concurrent.ConcurrentHashMap<>();


    /**
     * The holder reports a failure: back to PENDING after a backoff (or {@code retryAfter}),
     * or DEAD when the attempts are used up or the error is not retryable.
     */
    public JobRow fail(long id, String leaseId, String error, boolean retryable, Duration retryAfter, String by) {
        Ended f = failMany(List.of(new Failure(id, leaseId, error, retryable, retryAfter)), by).get(0);
        if (f.error() != null) {
            throw f.error();
        }
        return f.job();
    }

    /** A failure report: the lease, the error, whether another attempt may help, and the retry delay the worker asks for (null: the backoff). */
    public record Failure(long id, String leaseId, String error, boolean retryable, Duration retryAfter) {
    }

    /**
     * Failure reports, each decided on its job as read (a primary-key read per item): the retries
     * (attempts left, the common case) go into one statement, merged with the retries of other
     * reports in flight (readpast.merging.acks; off: each report on its own, as before); a job
     * that dies, one whose cancellation was requested, and an item the merged statement did not
     * retry (its lease lost, or a cancel asked meanwhile) are settled alone, so each answers as
     * it would unmerged.
     */
    public List<Ended> failMany(List<Failure> items, String by) {
        Ended[] out = new Ended[items.size()];
        List<RetryItem> retries = new ArrayList<>();
        List<Integer> retryAt = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Failure f = items.get(i);
            try {
                JobRow job = store.jobGet(f.id()).orElseThrow(() -> BrokerException.jobNotFound(f.id()));
                if (job.leaseId() == null || !job.leaseId().equalsIgnoreCase(f.leaseId())) {
                    throw BrokerException.leaseConflict(f.id());
                }
                if (mergesAcks() && !JobStatus.of(job).terminal() && !job.cancelRequested()
                        && f.retryable() && job.attempt() < job.maxAttempts()) {
                    retries.add(new RetryItem(f.id(), f.leaseId(), f.error(), retryDelayMs(job, f.retryAfter())));
                    retryAt.add(i);
                    continue;
                }
                out[i] = new Ended(f.id(), failAlone(job, f, by), null);
            } catch (BrokerException e) {
                out[i] = new Ended(f.id(), null, e);
            }
        }
        if (!retries.isEmpty()) {
            Map<Long, JobStore.Retried> done = ackLine(retrying, by, store::jobRetryMany).submit(retries);
            Set<Long> seen = new HashSet<>();
            for (int r = 0; r < retries.size(); r++) {
                RetryItem item = retries.get(r);
                int i = retryAt.get(r);
                JobStore.Retried retried = done.get(item.id());
                try {
                    JobRow job;
                    if (retried != null && retried.retriedLease().equalsIgnoreCase(item.leaseId()) && seen.add(item.id())) {
                        job = outcomes.announced(outcomes.counted(retried.job(), false));
                    } else {
                        // not retried: a cancel asked meanwhile (CANCELLED), or the lease was lost
                        LeaseEnd end = new LeaseEnd(item.id(), item.leaseId(), item.error(), false, by);
                        Optional<JobRow> cancelled = store.jobCancelLeased(end);
                        job = cancelled.isPresent() ? outcomes.announced(outcomes.counted(cancelled.get(), false))
                                : settledEarlier(item.id(), item.leaseId(), JobStatus.DEAD, JobStatus.CANCELLED);
                    }
                    out[i] = new Ended(item.id(), job, null);
                } catch (BrokerException e) {
                    out[i] = new Ended(item.id(), null, e);
                }
            }
        }
        return Arrays.asList(out);
    }

    /** A failure settled on its own: the job as read, its lease checked. */
    private JobRow failAlone(JobRow job, Failure f, String by) {
        if (JobStatus.of(job).terminal()) {
            return settledEarlier(f.id(), f.leaseId(), JobStatus.DEAD, JobStatus.CANCELLED);
        }
        Optional<JobRow> settled = settleFailure(job, f.error(), f.retryable(), f.retryAfter(), false, by);
        return settled.isPresent() ? outcomes.announced(outcomes.counted(settled.get(), false))
                : settledEarlier(f.id(), f.leaseId(), JobStatus.DEAD, JobStatus.CANCELLED);
    }

    /** Retries of concurrent failure reports of one key, one statement for all (readpast.merging.acks). */
    private final java.util.concurrent.ConcurrentHashMap<String, Coalescer<List<RetryItem>, Map<Long, JobStore.Retried>>>
            retrying = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * One pass over expired leases: every job whose lease expired goes back to PENDING (or
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
            String error = timedOut(job)
                    ? "timed out after " + job.timeoutSeconds() + " s" + (job.workerId() == null ? ""
                            : " (worker " + job.workerId() + ")")
                    : "lease expired" + (job.workerId() == null ? "" : " (worker " + job.workerId() + ")");
            try {
                Optional<JobRow> settledJob = settleFailure(job, error, true, null, true, null);
                if (settledJob.isPresent()) {
                    outcomes.announced(outcomes.counted(settledJob.get(), true));
                    settled++;
                }
            } catch (RuntimeException e) {
                LOG.warnf("Could not return expired job %d: %s", job.id(), e.getMessage());
            }
        }
        if (settled > 0) {
            LOG.debugf("Lease expiry returned %d expired jobs", settled);
        }
        return settled;
    }

    /** The lease ran out at the job's deadline (timeoutSeconds), not before it: the job took too long. */
    static boolean timedOut(JobRow job) {
        return job.deadlineAt() != null && job.leaseExpiresAt() != null && !job.leaseExpiresAt().isBefore(job.deadlineAt());
    }

    /**
     * The one way out of a lease that did not succeed (failure report or expiry): CANCELLED
     * when a cancel was requested, DEAD when attempts are used up or the error is fatal, else
     * back to PENDING after the job's own backoff, else its queue's (or the broker's).
     */
    private Optional<JobRow> settleFailure(JobRow job, String error, boolean retryable, Duration retryAfter,
                                           boolean expiredOnly, String by) {
        LeaseEnd end = new LeaseEnd(job.id(), job.leaseId(), error, expiredOnly, by);
        if (job.cancelRequested()) {
            return store.jobCancelLeased(end);
        }
        boolean dead = !retryable || job.attempt() >= job.maxAttempts();
        if (dead) {
            Optional<JobRow> killed = store.jobKill(end);
            // a cancel may have been requested since the job was read: it ends CANCELLED, not DEAD
            return killed.isPresent() ? killed : store.jobCancelLeased(end);
        }
        Optional<JobRow> retried = store.jobRetry(end, retryDelayMs(job, retryAfter));
        // a cancel may have been requested since the job was read
        return retried.isPresent() ? retried : store.jobCancelLeased(end);
    }

    /** The failure's retryAfter, else the job's own backoff, else its queue's (or the broker's). */
    private long retryDelayMs(JobRow job, Duration retryAfter) {
        if (retryAfter != null) {
            return retryAfter.toMillis();
        }
        if (job.retryPolicy() != null) {
            return RetryPolicy.delayMs(job.attempt(), job.retryPolicy());
        }
        Duration base = job.queueBackoffBaseMs() != null
                ? Duration.ofMillis(job.queueBackoffBaseMs()) : config.defaults().backoffBase();
        Duration cap = job.queueBackoffCapMs() != null
                ? Duration.ofMillis(job.queueBackoffCapMs()) : config.defaults().backoffCap();
        return RetryPolicy.delayMs(job.attempt(), base, cap);
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
                && Arrays.asList(outcomes).contains(status)) {
            return job;
        }
        throw BrokerException.leaseConflict(id);
    }

    /** A guarded change found nothing: the job is gone (404) or the caller lost the lease (409). */
    private BrokerException lost(long id) {
        return store.jobGet(id).isPresent() ? BrokerException.leaseConflict(id) : BrokerException.jobNotFound(id);
    }
}
