package io.readpast.store;

import java.util.List;
import java.util.Optional;

/**
 * Storage operations, one per named statement (noun first). Every lease-bound write is guarded
 * in SQL by job id, lease id and state: an empty result means the caller does not hold the lease.
 */
public interface JobStore {

    /** Inserts a job (creating its queue row when missing). Throws DUPLICATE_KEY on a live idempotency key. */
    JobRow jobInsert(NewJob job);

    /** The job wherever it lives: hot, archive or dead-letter table. */
    Optional<JobRow> jobGet(long id);

    /** Leases up to {@code limit} claimable jobs in one statement; {@code queues} null means every queue. */
    List<JobRow> jobClaim(String workerId, List<String> queues, int limit, int leaseSeconds);

    /** Extends the lease (LEASED becomes PROCESSING); null {@code leaseSeconds} keeps the claim's length. */
    Optional<JobRow> jobHeartbeat(long id, String leaseId, Integer leaseSeconds, String progress);

    /** Moves the job to the archive as SUCCEEDED. */
    Optional<JobRow> jobComplete(long id, String leaseId, String result);

    /** Back to PENDING, due after {@code delayMs}. With {@code expiredOnly}, only if the lease has expired. */
    Optional<JobRow> jobRetry(long id, String leaseId, long delayMs, String error, boolean expiredOnly);

    /** Moves the job to the dead-letter table as DEAD. With {@code expiredOnly}, only if the lease has expired. */
    Optional<JobRow> jobKill(long id, String leaseId, String error, boolean expiredOnly);

    /** Back to PENDING without spending an attempt. */
    Optional<JobRow> jobRelease(long id, String leaseId);

    /** Leased or processing jobs whose lease has expired, oldest expiry first. */
    List<JobRow> jobListExpired(int limit);

    QueueRow queueUpsert(QueueSettings settings);

    Optional<QueueRow> queueGet(String name);
}
