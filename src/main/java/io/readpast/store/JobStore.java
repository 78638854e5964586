package io.readpast.store;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Jobs and the claim path, one operation per named statement (noun first). Every lease-bound
 * write is guarded in SQL by job id, lease id and state: an empty result means the caller does
 * not hold the lease. A {@code by} argument is the API key name recorded as modified_by (null
 * keeps the previous one).
 */
public interface JobStore {

    /**
     * Inserts a job (creating its queue row when missing): the new row, created true. With a
     * uniqueness key held by another job within its window (uniqueFor), that job, created false.
     * Empty when a live job already holds the idempotency key; DUPLICATE_KEY when a concurrent
     * insert won the race.
     */
    Optional<Inserted> jobInsert(NewJob job);

    /**
     * A debounced enqueue in one transaction: takes {@code windowKey} for {@code windowMs} and
     * inserts the job (created true); when the key's window is still open and its job is PENDING
     * and not being claimed, replaces that job's payload and priority instead (created false).
     */
    Inserted jobInsertDebounced(NewJob job, String windowKey, long windowMs);

    /**
     * Inserts every job in one transaction. Each answer is the new row, or the live job that
     * already held the idempotency key (marked by {@link Inserted#created()} false).
     */
    List<Inserted> jobInsertMany(List<NewJob> jobs);

    /**
     * Whether jobs of different requests may go into one multi-row insert (readpast.merging.enqueues).
     * Not on Babelfish: its OPENJSON hands a string member back still escaped, so a payload carried
     * in the insert's JSON items would be stored escaped; there every single enqueue keeps its own
     * typed insert (POST /jobs/batch meets the defect as before: docs/sqlserver.md).
     */
    default boolean mergesEnqueues() {
        return true;
    }

    /**
     * Whether completions, failure reports, heartbeats and releases of concurrent requests may go
     * into one statement (readpast.merging.acks). Not on Babelfish, for the same defect as
     * {@link #mergesEnqueues}: a result or an error carried as a string in the statement's JSON
     * items would be stored escaped; there each request keeps its own typed statement.
     */
    default boolean mergesAcks() {
        return true;
    }

    /** The outcome of one insert in {@link #jobInsertMany}. */
    record Inserted(JobRow job, boolean created) {
    }

    /** The live job holding an idempotency key. */
    Optional<JobRow> jobGetByKey(String idempotencyKey);

    /** The queue of each of these jobs, wherever each is now; ids of no job are left out. */
    Map<Long, String> jobQueues(Collection<Long> ids);

    /** The job wherever it lives: hot, archive or dead-letter table. */
    Optional<JobRow> jobGet(long id);

    /** Leases up to {@code claim.limit()} claimable jobs in one statement, in claim order. */
    List<JobRow> jobClaim(ClaimParams claim);

    /** A job a batch acknowledgement completed: its queue, and the lease it was completed under. */
    record Acked(String queue, String leaseId) {
    }

    /**
     * Completes every item whose lease is held and leases up to {@code claim.limit()} claimable
     * jobs, in one round trip when no capped queue is in scope (the acks committed before the
     * claim). {@code claim.by()} is recorded on both.
     */
    AckClaimed jobAckClaim(List<CompleteItem> acks, ClaimParams claim);

    /**
     * What {@link #jobAckClaim} did: the completed ids, and the claimed jobs in claim order;
     * {@code contended}: the claim got fewer than it asked for while a capped queue in scope,
     * with room and due work, was held by another claim for as long as it tried (more may be
     * claimable a moment later, with nothing new announced).
     */
    record AckClaimed(Map<Long, Acked> acked, List<JobRow> claimed, boolean contended) {
        public AckClaimed(Map<Long, Acked> acked, List<JobRow> claimed) {
            this(acked, claimed, false);
        }
    }

    /**
     * How many times claims of this instance tried again, in a new transaction, because a capped
     * queue in scope with room and due work was held by another claim (metric
     * readpast_claim_contended_retries_total).
     */
    long contendedClaimRetries();

    /**
     * Claims (each with its acks, maybe none) merged into one statement: they share queues, types
     * and key ({@code by}), each has its worker, limit and lease length, and gets its slice of the
     * claimed jobs (the first claim the best ones). One answer per claim, in order; the acks done
     * are the same map in every answer.
     */
    List<AckClaimed> jobClaimMerged(List<List<CompleteItem>> acks, List<ClaimParams> claims);

    /** Extends the lease (LEASED becomes PROCESSING); null {@code leaseSeconds} keeps the claim's length. */
    Optional<JobRow> jobHeartbeat(LeaseRef lease, Integer leaseSeconds, String progress);

    /** A lease a batch heartbeat extended: the lease, when it now runs out, and whether cancel was asked. */
    record Extended(String leaseId, Instant leaseExpiresAt, boolean cancelRequested) {
    }

    /** Extends every item whose lease is held, in one statement: the extended leases by job id. */
    Map<Long, Extended> jobHeartbeatMany(List<HeartbeatItem> items);

    /** Moves the job to the archive as SUCCEEDED. */
    Optional<JobRow> jobComplete(LeaseRef lease, String result, String by);

    /** Completes every item whose lease is held, in one statement; returns the completed ids. */
    Map<Long, Acked> jobCompleteMany(List<CompleteItem> items, String by);

    /**
     * Single completions merged: every item whose lease is held, in one statement for the jobs in
     * no batch and with no dependents and one more transaction that completes and settles the
     * others; returns the completed jobs as SUCCEEDED, by id. An item not returned was not held.
     */
    Map<Long, JobRow> jobCompleteRows(List<CompleteItem> items, String by);

    /** A job a batch release gave back: the job as it is now, and the lease it was released from. */
    record Released(JobRow job, String releasedLease) {
    }

    /**
     * Gives back every item whose lease is held and whose cancellation was not requested, in one
     * statement, each as {@link #jobRelease} does; returns them by id. The others are left: a
     * cancel-requested job is for {@link #jobCancelLeased}, the rest were not held.
     */
    Map<Long, Released> jobReleaseMany(List<ReleaseItem> items, String by);

    /** A job a batch retry put back: the job as it is now, and the lease it failed under. */
    record Retried(JobRow job, String retriedLease) {
    }

    /**
     * Failures with attempts left, reported by their holders, in one statement, each as
     * {@link #jobRetry} does for a running lease; returns the retried jobs by id. An item whose
     * lease is not held (or has run out), or whose cancellation was requested, is left.
     */
    Map<Long, Retried> jobRetryMany(List<RetryItem> items, String by);


    /**
     * A PENDING job becomes CANCELLED at once (moved to the archive). With {@code skipLocked} a
     * row another transaction holds at this moment (a claim taking it) is skipped (empty), not
     * waited for; the same for the next two.
     */
    Optional<JobRow> jobCancelPending(long id, String by, boolean skipLocked);

    /** A LEASED or PROCESSING job is flagged cancel-requested. */
    Optional<JobRow> jobCancelRequest(long id, String by, boolean skipLocked);

    /** A cancel-requested job comes back from its holder (or its lease expired): CANCELLED. */
    Optional<JobRow> jobCancelLeased(LeaseEnd end);

    /**
     * Edits a job nobody holds (PENDING or WAITING): each of {@code priority}, {@code runAt} and
     * {@code payload} (JSON text) that is not null replaces the job's; {@code runNow} makes it due
     * at once instead. One statement that skips a row a claim holds: empty when the job is held,
     * finished, gone, or being claimed at this moment.
     */
    Optional<JobRow> jobEdit(long id, Integer priority, java.time.Instant runAt, boolean runNow, String payload, String by);

    /**
     * A DEAD or CANCELLED job back to PENDING, attempts reset unless {@code keepAttempts};
     * {@code payload} null keeps it.
     */
    Optional<JobRow> jobRequeue(long id, String payload, boolean keepAttempts, String queue, String by);

    /** Deletes a finished (archived or dead) job; false when there was none. */
    boolean jobPurge(long id);

    /** Browses jobs newest first across all tables. */
    List<JobRow> jobList(JobFilter filter);

    /** Dead letters newest first. */
    List<JobRow> jobListDead(DeadFilter filter);

    /**
     * Finished jobs (archive and dead letters) per minute, per queue and status, over the last
     * {@code minutes} minutes on the database clock; {@code queue} null means every queue.
     */
    Throughput jobThroughput(String queue, int minutes);

    /**
     * The window starts at {@code windowStart} (a whole minute) and ends at the start of the
     * minute after the database's now; each count is one queue's jobs that reached {@code status}
     * in minute {@code bucket} (0 = the first minute of the window).
     */
    record Throughput(Instant windowStart, List<Count> counts) {
        public record Count(String queue, int status, int bucket, long n) {
        }
    }

    /** Back to PENDING, due after {@code delayMs}. With {@code end.expiredOnly()}, only if the lease has expired. */
    Optional<JobRow> jobRetry(LeaseEnd end, long delayMs);

    /** Moves the job to the dead-letter table as DEAD. With {@code end.expiredOnly()}, only if the lease has expired. */
    Optional<JobRow> jobKill(LeaseEnd end);

    /**
     * Back to PENDING without spending an attempt: in its place in line, or due {@code delayMs}
     * from now on the database clock when that is positive.
     */
    Optional<JobRow> jobRelease(LeaseRef lease, long delayMs, String by);

    /**
     * Leased or processing jobs whose lease has expired, oldest expiry first; with the earliest
     * lease that has not expired yet (null when none) and the database clock.
     */
    ExpiredLeases jobListExpired(int limit);

    /** What {@link #jobListExpired} found. */
    record ExpiredLeases(List<JobRow> expired, Instant nextExpiry, Instant dbNow) {
    }

    /**
     * The long-poll check: the queues among these (null = every queue) with pending jobs, each
     * with whether a job is claimable now and when its earliest pending job is due (null where
     * the engine does not say: SQL Server).
     */
    List<DueQueue> jobAnyDue(List<String> queues);

    /** One queue of {@link #jobAnyDue}, with the database clock of the check. */
    record DueQueue(String name, boolean dueNow, Instant nextDueAt, Instant dbNow) {
    }
}
