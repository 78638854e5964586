package io.readpast.core;

import io.quarkus.runtime.StartupEvent;
import io.readpast.config.ReadpastConfig;
import io.readpast.ops.BrokerMetrics;
import io.readpast.store.Database;
import io.readpast.store.JobRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;


/**
 * Fires due schedules (see {@link ScheduleFirer}) when the {@link FeatureClock} finds a slot due.
 * Runs on every instance: a schedule being fired is locked and skipped by the others, and every
 * slot is recorded under a unique key, so running it everywhere fires each slot once. A schedule
 * set here wakes the clock at once; one set through another instance is found within
 * readpast.sweeper.timers-interval, well within the misfire grace.
 */
@ApplicationScoped
public class ScheduleSweeper {

    private static final Logger LOG = Logger.getLogger(ScheduleSweeper.class);

    private final Database database;
    private final ReadpastConfig config;
    private final JobAnnouncer announcer;
    private final BrokerMetrics metrics;
    private final FeatureClock clock;
    private volatile ScheduleFirer firer;

    public ScheduleSweeper(Database database, ReadpastConfig config, JobAnnouncer announcer, BrokerMetrics metrics,
                           FeatureClock clock) {
        this.database = database;
        this.config = config;
        this.announcer = announcer;
        this.metrics = metrics;
        this.clock = clock;
    }

    void onStart(@Observes StartupEvent event) {
        clock.register(FeatureClock.Task.SCHEDULES, this::runOnce);
    }

    /** A schedule was created, replaced or resumed here: look at once. */
    public void wake() {
        clock.wake();
    }

    /** Fires every schedule due now; returns how many jobs were enqueued. */
    public int runOnce() {
        return firer().runOnce();
    }

    /** A firer like the one this instance runs (tests race several of them). */
    public ScheduleFirer newFirer() {
        var s = config.schedules();
        return new ScheduleFirer(database.start(), s.batch(), s.catchUpMax(), s.misfireGrace(),
                config.defaults().maxAttempts(), this::enqueued);
    }

    private ScheduleFirer firer() {
        ScheduleFirer f = firer;
        if (f == null) {
            f = newFirer();
            firer = f;
        }
        return f;
    }

    private void enqueued(JobRow job) {
        metrics.count(BrokerMetrics.Event.ENQUEUED, job.queue(), 1);
        try {
            if (job.dueAt() != null && job.updatedAt() != null && !job.dueAt().isAfter(job.updatedAt())) {
                announcer.announce(job.queue(), 1);
            }
        } catch (RuntimeException e) {
            // committed: a lost wake-up only delays waiting claims until the next poll
            LOG.debugf("Announcing scheduled job %d failed: %s", job.id(), e.getMessage());
        }
    }
}
