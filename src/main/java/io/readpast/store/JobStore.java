package io.readpast.store;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Storage operations, one per named statement (noun first). Every lease-bound write is guarded
 * in SQL by job id, lease id and state: an empty result means the caller does not hold the lease.
 * A {@code by} argument is the API key name recorded as modified_by (null keeps the previous one).
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
     * Inserts every job in one transaction. Each answer is the new row, or the live job that
     * already held the idempotency key (marked by {@link Inserted#created()} false).
     */
    List<Inserted> jobInsertMany(List<NewJob> jobs);

    /** The outcome of one insert in {@link #jobInsertMany}. */
    record Inserted(JobRow job, boolean created) {
    }

    /** The live job holding an idempotency key. */
    Optional<JobRow> jobGetByKey(String idempotencyKey);

    /** The job wherever it lives: hot, archive or dead-letter table. */
    /** The queue of each of these jobs, wherever each is now; ids of no job are left out. */
    Map<Long, String> jobQueues(java.util.Collection<Long> ids);

    Optional<JobRow> jobGet(long id);

    /**
     * Leases up to {@code limit} claimable jobs in one statement; {@code queues} null means
     * every queue; {@code leaseSeconds} null means the queue's default, else {@code defaultLeaseSeconds}.
     */
    List<JobRow> jobClaim(String workerId, List<String> queues, int limit, Integer leaseSeconds,
                          int defaultLeaseSeconds, String by);

    /** A job a batch acknowledgement completed: its queue, and the lease it was completed under. */
    record Acked(String queue, String leaseId) {
    }

    /**
     * Completes every item whose lease is held and leases up to {@code limit} claimable jobs, in
     * one round trip when no capped queue is in scope (the acks committed before the claim). Parameters as for
     * {@link #jobCompleteMany} and {@link #jobClaim}; {@code by} is recorded on both.
     */
    AckClaimed jobAckClaim(List<CompleteItem> acks, String workerId, List<String> queues, int limit,
                           Integer leaseSeconds, int defaultLeaseSeconds, String by);

    /** What {@link #jobAckClaim} did: the completed ids, and the claimed jobs in claim order. */
    record AckClaimed(java.util.Map<Long, Acked> acked, List<JobRow> claimed) {
    }

    /** Extends the lease (LEASED becomes PROCESSING); null {@code leaseSeconds} keeps the claim's length. */
    Optional<JobRow> jobHeartbeat(long id, String leaseId, Integer leaseSeconds, String progress);

    /** Moves the job to the archive as SUCCEEDED. */
    Optional<JobRow> jobComplete(long id, String leaseId, String result, String by);

    /** Completes every item whose lease is held, in one statement; returns the completed ids. */
    java.util.Map<Long, Acked> jobCompleteMany(List<CompleteItem> items, String by);

    /** A PENDING job becomes CANCELLED at once (moved to the archive). */
    Optional<JobRow> jobCancelPending(long id, String by);

    /** A LEASED or PROCESSING job is flagged cancel-requested. */
    Optional<JobRow> jobCancelRequest(long id, String by);

    /** A cancel-requested job comes back from its holder (or its lease expired): CANCELLED. */
    Optional<JobRow> jobCancelLeased(long id, String leaseId, String error, boolean expiredOnly, String by);

    /** A DEAD or CANCELLED job back to PENDING, attempts reset; {@code payload} null keeps it. */
    Optional<JobRow> jobRequeue(long id, String payload, String by);

    /** Deletes a finished (archived or dead) job; false when there was none. */
    boolean jobPurge(long id);

    /** Browses jobs newest first across all tables. */
    List<JobRow> jobList(JobFilter filter);

    /** Dead letters newest first. */
    List<JobRow> jobListDead(String queue, String type, Long after, int limit);

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
    record Throughput(java.time.Instant windowStart, List<Count> counts) {
        public record Count(String queue, int status, int bucket, long n) {
        }
    }

    /** Retention: deletes up to {@code limit} archived jobs older than {@code olderThanMs}; returns how many. */
    int archivePurgeOld(long olderThanMs, int limit);

    /** Retention: deletes up to {@code limit} dead letters older than {@code olderThanMs}; returns how many. */
    int deadPurgeOld(long olderThanMs, int limit);

    /** Back to PENDING, due after {@code delayMs}. With {@code expiredOnly}, only if the lease has expired. */
    Optional<JobRow> jobRetry(long id, String leaseId, long delayMs, String error, boolean expiredOnly, String by);

    /** Moves the job to the dead-letter table as DEAD. With {@code expiredOnly}, only if the lease has expired. */
    Optional<JobRow> jobKill(long id, String leaseId, String error, boolean expiredOnly, String by);

    /** Back to PENDING without spending an attempt. */
    Optional<JobRow> jobRelease(long id, String leaseId, String by);

    /**
     * Leased or processing jobs whose lease has expired, oldest expiry first; with the earliest
     * lease that has not expired yet (null when none) and the database clock.
     */
    ExpiredLeases jobListExpired(int limit);

    /** What {@link #jobListExpired} found. */
    record ExpiredLeases(List<JobRow> expired, java.time.Instant nextExpiry, java.time.Instant dbNow) {
    }

    QueueRow queueUpsert(QueueSettings settings);

    Optional<QueueRow> queueGet(String name);

    List<QueueRow> queueList(boolean includeInactive);

    QueueRow queueSetPaused(String name, boolean paused);

    /** The names among these that have a queue row (as given; the database's comparison decides). */
    List<String> queueFind(List<String> names);

    /**
     * A stored API key: name, roles ("admin", "producer+worker"), SHA-256 hex digest, queue scope
     * (a|b as in READPAST_API_KEYS; null = every queue), origin ("generated" at first start, or "api"), the
     * key that made it and when.
     */
    record StoredKey(String name, String roles, String digest, String queues, String origin, String createdBy,
                     java.time.Instant createdAt) {
    }

    List<StoredKey> apiKeyList();

    /** Deletes a stored key; false when there was none of that name. */
    boolean apiKeyDelete(String name);

    /**
     * The long-poll check: the queues among these (null = every queue) with pending jobs, each
     * with whether a job is claimable now and when its earliest pending job is due (null where
     * the engine does not say: SQL Server).
     */
    List<DueQueue> jobAnyDue(List<String> queues);

    /** One queue of {@link #jobAnyDue}, with the database clock of the check. */
    record DueQueue(String name, boolean dueNow, java.time.Instant nextDueAt, java.time.Instant dbNow) {
    }

    /** Stores a key unless one of that name exists; true when this call stored it. */
    boolean apiKeyInsert(StoredKey key);

    // ---- recurring schedules ---------------------------------------------------------------

    /** The database clock (schedule fire times are computed from it). */
    java.time.Instant dbNow();

    /**
     * Creates or replaces a schedule ({@code settings.nextFireAt()} is the first fire time of the
     * new expression); one that keeps its expression and time zone and is not paused keeps its
     * next fire time. {@code by} is recorded as modified_by (and created_by on creation).
     */
    ScheduleRow scheduleUpsert(ScheduleRow settings, String by);

    Optional<ScheduleRow> scheduleGet(String name);

    /** Schedules by name after {@code after} (null: from the first). */
    List<ScheduleRow> scheduleList(String after, int limit);

    /** Deletes a schedule and its fire records; false when there was none. */
    boolean scheduleDelete(String name);

    /** Pauses or resumes; resuming a paused schedule sets its next fire time to {@code nextFireAt}. */
    Optional<ScheduleRow> scheduleSetPaused(String name, boolean paused, java.time.Instant nextFireAt);

    /** Names of schedules with a slot due now (database clock), most overdue first. */
    List<String> scheduleListDue(int limit);

    /**
     * Fires one due schedule in one transaction: locks its row (skipping it when another
     * instance holds it), asks {@code planner} which slots to fire, records each slot under the
     * unique key (schedule, slot) so that none fires twice, enqueues the template's job for it
     * (due at the slot time; with overlap SKIP, no job while the previous one is still live) and
     * moves the schedule to the plan's next slot. Empty when the schedule was not due or was
     * taken by another instance.
     */
    Optional<ScheduleRow.Fired> scheduleFire(String name,
                                             java.util.function.Function<ScheduleRow.Due, ScheduleRow.FirePlan> planner,
                                             int defaultMaxAttempts);

    /**
     * When the feature timer must next look (each null when nothing is planned): the earliest
     * schedule slot, job expiry and webhook delivery, with the database's now.
     */
    record NextTimes(java.time.Instant nextFire, java.time.Instant nextExpiry, java.time.Instant nextDelivery,
                     java.time.Instant dbNow) {
    }

    /** One statement: see {@link NextTimes}. */
    NextTimes featureNextTimes();

    // ---- completion webhooks (outbox) ------------------------------------------------------

    /**
     * Leases up to {@code limit} due deliveries (PENDING and due, or SENDING with an expired
     * lease) for {@code leaseSeconds}, counting an attempt; rows other senders hold are skipped.
     */
    List<WebhookRow> webhookClaim(int limit, int leaseSeconds);

    /** DELIVERED, if the lease is still held; false when another sender took it over. */
    boolean webhookDelivered(long seq, String leaseId, int statusCode);

    /**
     * PENDING again after {@code delayMs}, or DEAD: when the next attempt is due (database
     * clock); empty when the lease is no longer held.
     */
    Optional<java.time.Instant> webhookFailed(long seq, String leaseId, Integer statusCode, String error, long delayMs,
                                              boolean dead);

    /** Deliveries newest first, of one status (null: all), before sequence {@code after} (null: from the newest). */
    List<WebhookRow> webhookList(Integer status, Long after, int limit);

    Optional<WebhookRow> webhookGet(String deliveryId);

    /** A DEAD delivery back to PENDING, due now, attempts from zero; empty when there is no DEAD one with that id. */
    Optional<WebhookRow> webhookRetry(String deliveryId);


    // ---- expiresAt and uniqueFor -------------------------------------------------------------

    /**
     * Moves up to {@code limit} PENDING jobs past their expiresAt to the dead letters (DEAD, with
     * their webhooks); returns the queue of each.
     */
    List<String> jobExpirePending(int limit);

    /**
     * Housekeeping of the feature tables, up to {@code limit} rows each: fire records older than
     * {@code fireOlderThanMs}, uniqueness keys whose window ran out, deliveries DELIVERED or DEAD
     * longer ago than their retention. Returns the three counts, in that order.
     */
    int[] housekeepingPurge(long fireOlderThanMs, long deliveredOlderThanMs, long deadOlderThanMs, int limit);
}
