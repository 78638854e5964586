package io.readpast.core;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.ops.BrokerMetrics;
import io.readpast.store.Database;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;

/**
 * Fires due schedules (see {@link ScheduleFirer}). Runs on every instance: a schedule being
 * fired is locked and skipped by the others, and every slot is recorded under a unique key, so
 * running it everywhere fires each slot once. It sleeps until the earliest next fire time of any
 * schedule (one statement per look), or until a schedule is created, replaced or resumed here;
 * at the latest after readpast.schedules.interval (a schedule another instance created is found
 * then, well within the misfire grace).
 */
@ApplicationScoped
public class ScheduleSweeper {

    private static final Logger LOG = Logger.getLogger(ScheduleSweeper.class);

    private final Database database;
    private final ReadpastConfig config;
    private final JobAnnouncer announcer;
    private final BrokerMetrics metrics;
    private final Timetable timetable;
    private volatile ScheduleFirer firer;
    private volatile BackgroundLoop loop;

    public ScheduleSweeper(Database database, ReadpastConfig config, JobAnnouncer announcer, BrokerMetrics metrics,
                           Timetable timetable) {
        this.database = database;
        this.config = config;
        this.announcer = announcer;
        this.metrics = metrics;
        this.timetable = timetable;
    }

    void onStart(@Observes StartupEvent event) {
        Duration longest = DurationConverter.parseDuration(config.schedules().interval());
        loop = new BackgroundLoop("readpast-schedule-sweeper", timetable, longest, Duration.ofMillis(20), this::pass);
        loop.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        BackgroundLoop l = loop;
        if (l != null) {
            l.stop();
        }
    }

    /** A schedule was created, replaced or resumed here: look at once. */
    public void wake() {
        BackgroundLoop l = loop;
        if (l != null) {
            l.wake();
        }
    }

    private Instant pass() {
        if (!database.started()) {
            return Instant.now().plusSeconds(1);
        }
        JobStore store = database.start();
        JobStore.NextTime next = store.scheduleNextFire();
        timetable.observedDbNow(next.dbNow());
        if (next.next() != null && !next.next().isAfter(next.dbNow())) {
            runOnce();
            next = store.scheduleNextFire();
        }
        return next.next();
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
