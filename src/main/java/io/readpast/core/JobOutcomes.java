package io.readpast.core;

import io.readpast.store.JobRow;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.List;

/**
 * What follows a committed change to jobs, for every path that makes one: the counts, the
 * wake-ups of waiting claims, the lease expiry task's next look, and the webhook sender's nudge.
 * A failure here never undoes the change: a lost wake-up only delays waiters until the next poll.
 */
@ApplicationScoped
public class JobOutcomes {

    private static final Logger LOG = Logger.getLogger(JobOutcomes.class);

    private final JobEvents events;
    private final JobAnnouncer announcer;
    private final Timetable timetable;
    private final FinishedJobs finished;

    public JobOutcomes(JobEvents events, JobAnnouncer announcer, Timetable timetable, FinishedJobs finished) {
        this.events = events;
        this.announcer = announcer;
        this.timetable = timetable;
        this.finished = finished;
    }

    JobEvents events() {
        return events;
    }

    /** Counts a settled job by the state it reached. */
    JobRow counted(JobRow job, boolean expired) {
        JobEvents.Event event = switch (JobStatus.of(job)) {
            case SUCCEEDED -> JobEvents.Event.COMPLETED;
            case DEAD -> JobEvents.Event.DEAD;
            case CANCELLED -> JobEvents.Event.CANCELLED;
            case PENDING -> expired ? JobEvents.Event.EXPIRED : JobEvents.Event.FAILED;
            default -> null;
        };
        if (event != null) {
            events.count(event, job.queue(), 1);
        }
        if (expired && event != JobEvents.Event.EXPIRED) {
            events.count(JobEvents.Event.EXPIRED, job.queue(), 1);
        }
        if (event == JobEvents.Event.COMPLETED || event == JobEvents.Event.DEAD) {
            finished.finished(); // its webhook, if any, is in the outbox now
        }
        return job;
    }

    /** Jobs finished by a batch (their webhooks, if any, are in the outbox now). */
    void completed(List<String> queues) {
        queues.forEach(q -> events.count(JobEvents.Event.COMPLETED, q, 1));
        if (!queues.isEmpty()) {
            finished.finished();
        }
    }

    /** Tells waiting claims about a job that is claimable now, or when it will be. */
    JobRow announced(JobRow job) {
        try {
            if (JobStatus.of(job) == JobStatus.PENDING) {
                if (dueNow(job)) {
                    announcer.announce(job.queue(), 1);
                } else {
                    announcer.scheduled(job.queue(), job.dueAt());
                }
            }
        } catch (RuntimeException e) {
            LOG.debugf("Announcing job %d failed: %s", job.id(), e.getMessage());
        }
        return job;
    }

    /** A queue's jobs may have become claimable with no enqueue to announce them: the due polls look. */
    void queueChanged(String queue, Instant at) {
        try {
            announcer.scheduled(queue, at == null ? Instant.EPOCH : at);
        } catch (RuntimeException e) {
            LOG.debugf("Announcing the settings of queue %s failed: %s", queue, e.getMessage());
        }
    }

    /** Counts claimed jobs and tells the lease expiry task when the first of their leases runs out. */
    void leased(long nanos, List<JobRow> jobs) {
        events.claimed(nanos, jobs.size());
        Instant first = null;
        for (JobRow j : jobs) {
            events.count(JobEvents.Event.CLAIMED, j.queue(), 1);
            if (j.leaseExpiresAt() != null && (first == null || j.leaseExpiresAt().isBefore(first))) {
                first = j.leaseExpiresAt();
            }
        }
        if (first != null) {
            timetable.noteLeaseExpiry(first);
        }
    }

    /** Due now on the database clock: the due time is not after the write's own timestamp. */
    static boolean dueNow(JobRow job) {
        return job.dueAt() != null && job.updatedAt() != null && !job.dueAt().isAfter(job.updatedAt());
    }
}
