package io.readpast.core;

import io.readpast.config.ReadpastConfig;
import io.readpast.store.JobRow;
import io.readpast.store.ScheduleStore;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Fires due schedules (see {@link ScheduleFirer}) when the {@link TimersTask} finds a slot due.
 * Safe on every instance: a schedule being fired is locked and skipped by the others, and every
 * slot is recorded under a unique key, so running it everywhere fires each slot once. A schedule
 * set here wakes the timers at once; one set through another instance is found within
 * readpast.sweeper.timers-interval, well within the misfire grace.
 */
@ApplicationScoped
public class ScheduleFiring {

    private static final Logger LOG = Logger.getLogger(ScheduleFiring.class);

    private final ScheduleStore store;
    private final ReadpastConfig config;
    private final JobAnnouncer announcer;
    private final JobOutcomes outcomes;
    private volatile ScheduleFirer firer;

    public ScheduleFiring(ScheduleStore store, ReadpastConfig config, JobAnnouncer announcer, JobOutcomes outcomes) {
        this.store = store;
        this.config = config;
        this.announcer = announcer;
        this.outcomes = outcomes;
    }

    /** Fires every schedule due now; returns how many jobs were enqueued. */
    public int runOnce() {
        ScheduleFirer f = firer;
        if (f == null) {
            f = newFirer();
            firer = f;
        }
        return f.runOnce();
    }

    /** A firer like the one this instance runs (tests race several of them). */
    public ScheduleFirer newFirer() {
        var s = config.schedules();
        return new ScheduleFirer(store, s.batch(), s.catchUpMax(), s.misfireGrace(), config.defaults().maxAttempts(),
                this::enqueued);
    }

    private void enqueued(JobRow job) {
        outcomes.events().count(JobEvents.Event.ENQUEUED, job.queue(), 1);
        try {
            if (JobOutcomes.dueNow(job)) {
                announcer.announce(job.queue(), 1);
            }
        } catch (RuntimeException e) {
            // committed: a lost wake-up only delays waiting claims until the next poll
            LOG.debugf("Announcing scheduled job %d failed: %s", job.id(), e.getMessage());
        }
    }
}
