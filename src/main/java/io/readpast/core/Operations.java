package io.readpast.core;

import io.readpast.store.DeadFilter;
import io.readpast.store.JobFilter;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What operators do to jobs and read of them: read, browse, cancel, requeue, delete, throughput. */
@ApplicationScoped
public class Operations {

    private static final Logger LOG = Logger.getLogger(Operations.class);
    /** Tries of a cancel whose job keeps changing state under it. */
    private static final int TRIES = 5;

    private final JobStore store;
    private final JobOutcomes outcomes;

    public Operations(JobStore store, JobOutcomes outcomes) {
        this.store = store;
        this.outcomes = outcomes;
    }

    public JobRow get(long id) {
        return store.jobGet(id).orElseThrow(() -> BrokerException.jobNotFound(id));
    }

    /** The queue of each of these jobs, wherever each is now; ids of no job are left out. */
    public Map<Long, String> queuesOf(Collection<Long> ids) {
        return store.jobQueues(ids);
    }

    public List<JobRow> list(JobFilter filter) {
        return store.jobList(filter);
    }

    public List<JobRow> deadLetters(DeadFilter filter) {
        return store.jobListDead(filter);
    }

    /** Finished jobs per minute and queue over the last {@code minutes} minutes (database clock). */
    public JobStore.Throughput throughput(String queue, int minutes) {
        return store.jobThroughput(queue, minutes);
    }

    /**
     * Cancels a job: PENDING becomes CANCELLED at once; LEASED or PROCESSING is flagged, and
     * becomes CANCELLED when its worker fails or releases it or the lease expires. Cancelling a
     * cancelled job is a no-op; a SUCCEEDED or DEAD job cannot be cancelled (409).
     */
    public JobRow cancel(long id, String by) {
        return cancel(id, by, false);
    }

    /**
     * As {@link #cancel(long, String)}; {@code inBulk} (a bulk action's job) does not wait for a
     * job another transaction holds at this moment (a claim taking it, its worker's
     * acknowledgement): it is tried once and answered 409, which the bulk action counts as
     * skipped. A bulk action's jobs are logged at DEBUG: the action logs one line for all.
     */
    public JobRow cancel(long id, String by, boolean inBulk) {
        int tries = inBulk ? 1 : TRIES;
        for (int attempt = 0; attempt < tries; attempt++) {
            Optional<JobRow> done = store.jobCancelPending(id, by, inBulk);
            if (done.isPresent()) {
                audit(inBulk, "Job %d cancelled by %s", id, Audit.who(by));
                return outcomes.counted(done.get(), false);
            }
            Optional<JobRow> flagged = store.jobCancelRequest(id, by, inBulk);
            if (flagged.isPresent()) {
                audit(inBulk, "Cancel of running job %d requested by %s", id, Audit.who(by));
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

    /**
     * What a requeue changes besides the status: {@code payload} (JSON text) replaces the payload
     * and {@code queue} (an existing queue) the queue, each when not null; {@code keepAttempts}
     * keeps the attempts instead of resetting them.
     */
    public record Requeue(String payload, boolean keepAttempts, String queue) {
        public static final Requeue PLAIN = new Requeue(null, false, null);
    }

    /** DEAD or CANCELLED back to PENDING with attempts reset, changed as {@code changes} says. */
    public JobRow requeue(long id, Requeue changes, String by) {
        return requeue(id, changes, by, false);
    }

    /** As {@link #requeue(long, Requeue, String)}; {@code inBulk}: logged at DEBUG. */
    public JobRow requeue(long id, Requeue changes, String by, boolean inBulk) {
        String payload = changes.payload();
        boolean keepAttempts = changes.keepAttempts();
        Optional<JobRow> requeued;
        try {
            requeued = store.jobRequeue(id, payload, keepAttempts, changes.queue(), by).map(outcomes::announced);
        } catch (StoreException e) {
            if (e.kind() == StoreException.Kind.DUPLICATE_KEY) {
                throw new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Job " + id
                        + " cannot be requeued: a live job holds its idempotency key.");
            }
            throw e;
        }
        requeued.ifPresent(j -> audit(inBulk, "Job %d requeued by %s%s%s%s", id, Audit.who(by),
                payload == null ? "" : " with a new payload", keepAttempts ? ", attempts kept" : "",
                changes.queue() == null ? "" : ", into queue " + changes.queue()));
        return requeued.orElseThrow(() -> {
            JobStatus status = JobStatus.of(get(id));
            return new BrokerException(BrokerException.Kind.STATE_CONFLICT,
                    "Job " + id + " is " + status + "; only DEAD or CANCELLED jobs can be requeued.");
        });
    }

    /**
     * Edits a job nobody holds: priority, due time ({@code runAt}, or {@code runNow}) and payload
     * (JSON text), each when not null. 409 when the job is held, finished, or (run now) still
     * waiting for its parents; a claim taking it at this moment wins.
     */
    public JobRow edit(long id, Integer priority, java.time.Instant runAt, boolean runNow, String payload, String by) {
        for (int attempt = 0; attempt < TRIES; attempt++) {
            JobRow job = get(id);
            JobStatus before = JobStatus.of(job);
            if (before == JobStatus.WAITING && runNow) {
                throw new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Job " + id
                        + " is WAITING for its parents; it can run only once they have settled.");
            }
            if (before != JobStatus.PENDING && before != JobStatus.WAITING) {
                throw new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Job " + id + " is " + before
                        + "; only a PENDING or WAITING job (nobody holds it) can be edited.");
            }
            if (runAt != null && job.expiresAt() != null && !runAt.isBefore(job.expiresAt())) {
                throw BrokerException.invalid("'runAt' must be before the job's expiresAt (" + job.expiresAt()
                        + "): the job could never start.");
            }
            Optional<JobRow> edited = store.jobEdit(id, priority, runAt, runNow, payload, by);
            if (edited.isPresent()) {
                LOG.infof("Job %d edited by %s:%s%s%s%s", id, Audit.who(by),
                        priority == null ? "" : " priority " + priority,
                        runNow ? " run now" : runAt == null ? "" : " runAt " + runAt,
                        payload == null ? "" : " new payload", priority == null && runAt == null && !runNow
                                && payload == null ? " nothing" : "");
                return outcomes.announced(edited.get());
            }
            // claimed, or held by a claim, between the read and the edit: look again
        }
        throw new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Job " + id
                + " is being claimed or changed right now; read it and try again.");
    }

    /** Deletes a finished job for good. */
    public void purge(long id, String by) {
        purge(id, by, false);
    }

    /** As {@link #purge(long, String)}; {@code inBulk}: logged at DEBUG. */
    public void purge(long id, String by, boolean inBulk) {
        if (store.jobPurge(id)) {
            audit(inBulk, "Job %d deleted by %s", id, Audit.who(by));
        } else {
            JobStatus status = JobStatus.of(get(id));
            throw new BrokerException(BrokerException.Kind.STATE_CONFLICT,
                    "Job " + id + " is " + status + "; cancel it first, only finished jobs can be deleted.");
        }
    }

    /** An operator's change of one job: INFO, or DEBUG when a bulk action (logged once for all) made it. */
    private static void audit(boolean inBulk, String format, Object... args) {
        if (inBulk) {
            LOG.debugf(format, args);
        } else {
            LOG.infof(format, args);
        }
    }
}
