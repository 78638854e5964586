package io.readpast.core;

import io.quarkus.scheduler.Scheduled;
import io.readpast.config.ReadpastConfig;
import io.readpast.ops.BrokerMetrics;
import io.readpast.store.Database;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Fires due schedules (see {@link ScheduleFirer}) and deletes old fire records. Runs on every
 * instance: a schedule being fired is locked and skipped by the others, and every slot is
 * recorded under a unique key, so running it everywhere fires each slot once.
 */
@ApplicationScoped
public class ScheduleSweeper {

    private static final Logger LOG = Logger.getLogger(ScheduleSweeper.class);

    private final Database database;
    private final ReadpastConfig config;
    private final JobAnnouncer announcer;
    private final BrokerMetrics metrics;
    private volatile ScheduleFirer firer;

    public ScheduleSweeper(Database database, ReadpastConfig config, JobAnnouncer announcer, BrokerMetrics metrics) {
        this.database = database;
        this.config = config;
        this.announcer = announcer;
        this.metrics = metrics;
    }

    @Scheduled(every = "${readpast.schedules.interval:1s}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void sweep() {
        if (!database.started()) {
            return;
        }
        try {
            runOnce();
        } catch (StoreException e) {
            LOG.warnf("Schedule sweeper skipped a pass: %s", e.getMessage());
        }
    }

    @Scheduled(every = "${readpast.retention.interval:60s}", delayed = "7s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void purge() {
        if (!database.started()) {
            return;
        }
        try {
            purgeOnce();
        } catch (StoreException e) {
            LOG.warnf("Schedule fire records were not purged this time: %s", e.getMessage());
        }
    }

    /** Fires every schedule due now; returns how many jobs were enqueued. */
    public int runOnce() {
        return firer().runOnce();
    }

    /** Deletes fire records past readpast.schedules.fire-retention; returns how many. */
    public int purgeOnce() {
        JobStore store = database.start();
        int batch = Math.max(1, config.retention().batch());
        long olderThan = config.schedules().fireRetention().toMillis();
        int total = 0;
        int n;
        do {
            n = store.scheduleFirePurgeOld(olderThan, batch);
            total += n;
        } while (n > 0 && n >= batch);
        return total;
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
