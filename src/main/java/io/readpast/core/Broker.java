package io.readpast.core;

import io.readpast.config.ReadpastConfig;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.NewJob;
import io.readpast.store.QueueRow;
import io.readpast.store.QueueSettings;
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

    public Broker(JobStore store, ReadpastConfig config) {
        this.store = store;
        this.config = config;
    }

    public JobRow enqueue(NewJobRequest r) {
        NewJob job = new NewJob(r.queue(), r.type(), r.payload(), r.tags(), r.idempotencyKey(), r.priority(),
                r.maxAttempts(), config.defaults().maxAttempts(), r.runAt(), r.delayMs(), r.createdBy());
        return store.jobInsert(job);
    }

    public JobRow get(long id) {
        return store.jobGet(id).orElseThrow(() -> BrokerException.jobNotFound(id));
    }

    public List<JobRow> claim(String workerId, List<String> queues, int limit, Integer leaseSeconds) {
        int lease = leaseSeconds != null ? leaseSeconds : config.defaults().leaseSeconds();
        return store.jobClaim(workerId, queues, limit, lease);
    }

    public JobRow heartbeat(long id, String leaseId, Integer leaseSeconds, String progress) {
        return store.jobHeartbeat(id, leaseId, leaseSeconds, progress).orElseThrow(() -> lost(id));
    }

    public JobRow complete(long id, String leaseId, String result) {
        return store.jobComplete(id, leaseId, result).orElseThrow(() -> lost(id));
    }

    public JobRow release(long id, String leaseId) {
        return store.jobRelease(id, leaseId).orElseThrow(() -> lost(id));
    }

    /**
     * The holder reports a failure: back to PENDING after a backoff (or {@code retryAfter}),
     * or DEAD when the attempts are used up or the error is not retryable.
     */
    public JobRow fail(long id, String leaseId, String error, boolean retryable, Duration retryAfter) {
        JobRow job = store.jobGet(id).orElseThrow(() -> BrokerException.jobNotFound(id));
        if (job.leaseId() == null || !job.leaseId().equalsIgnoreCase(leaseId)) {
            throw BrokerException.leaseConflict(id);
        }
        return settleFailure(job, error, retryable, retryAfter, false).orElseThrow(() -> lost(id));
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
        for (JobRow job : store.jobListExpired(batch)) {
            String error = "lease expired" + (job.workerId() == null ? "" : " (worker " + job.workerId() + ")");
            if (settleFailure(job, error, true, null, true).isPresent()) {
                settled++;
            }
        }
        if (settled > 0) {
            LOG.debugf("Lease sweeper returned %d expired jobs", settled);
        }
        return settled;
    }

    private Optional<JobRow> settleFailure(JobRow job, String error, boolean retryable, Duration retryAfter,
                                           boolean expiredOnly) {
        boolean dead = !retryable || job.attempt() >= job.maxAttempts();
        if (dead) {
            return store.jobKill(job.id(), job.leaseId(), error, expiredOnly);
        }
        long delayMs = retryAfter != null
                ? retryAfter.toMillis()
                : RetryPolicy.delayMs(job.attempt(), config.defaults().backoffBase(), config.defaults().backoffCap());
        return store.jobRetry(job.id(), job.leaseId(), delayMs, error, expiredOnly);
    }

    public QueueRow putQueue(QueueSettings settings) {
        return store.queueUpsert(settings);
    }

    public QueueRow getQueue(String name) {
        return store.queueGet(name)
                .orElseThrow(() -> new BrokerException(BrokerException.Kind.NOT_FOUND, "No queue named '" + name + "'."));
    }

    /** A guarded change found nothing: the job is gone (404) or the caller lost the lease (409). */
    private BrokerException lost(long id) {
        return store.jobGet(id).isPresent() ? BrokerException.leaseConflict(id) : BrokerException.jobNotFound(id);
    }

    /** A validated enqueue; {@code payload} and {@code tags} are JSON text. */
    public record NewJobRequest(String queue, String type, String payload, String tags, String idempotencyKey,
                                int priority, Integer maxAttempts, java.time.Instant runAt, long delayMs,
                                String createdBy) {
    }
}
