package io.readpast.core;

import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.MaintenanceStore;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;

/**
 * The timed features of one instance: schedule slots coming due ({@link ScheduleFiring}), jobs
 * expiring ({@link JobExpiry}), webhook deliveries coming due (retries, and deliveries another
 * instance leased and left; registered by the webhook sender). One statement
 * (feature_next_times) tells it when each is next due, on the database clock; it runs the ones
 * that are due and sleeps until the earliest of the rest, or until this instance asks it to look
 * (a schedule set here, a job with an expiry enqueued here, jobs finished here), at most
 * readpast.sweeper.timers-interval. Idle, that is one statement per interval for all three.
 * Safe on every instance: each feature is (see each one).
 */
@ApplicationScoped
public class TimersTask implements BackgroundTask {

    private static final Logger LOG = Logger.getLogger(TimersTask.class);

    private final MaintenanceStore store;
    private final ReadpastConfig config;
    private final Timetable timetable;
    private final ScheduleFiring schedules;
    private final JobExpiry expiry;
    private final Timetable.Alarm alarm = new Timetable.Alarm();
    private volatile Runnable deliveries;

    public TimersTask(MaintenanceStore store, ReadpastConfig config, Timetable timetable, ScheduleFiring schedules,
                      JobExpiry expiry) {
        this.store = store;
        this.config = config;
        this.timetable = timetable;
        this.schedules = schedules;
        this.expiry = expiry;
    }

    /** Runs {@code sender} whenever webhook deliveries are due (set once, before the task starts). */
    public void deliveries(Runnable sender) {
        this.deliveries = sender;
    }

    /** Look at once (something was set or finished on this instance). */
    public void wake() {
        alarm.wakeBy(System.nanoTime());
    }

    /** Look no later than {@code dbTime} (database clock). */
    public void wakeAt(Instant dbTime) {
        if (dbTime != null) {
            alarm.wakeBy(timetable.lookAt(dbTime));
        }
    }

    @Override
    public String name() {
        return "readpast-timers";
    }

    @Override
    public Duration longest() {
        return DurationConverter.parseDuration(config.sweeper().timersInterval());
    }

    @Override
    public Timetable.Alarm alarm() {
        return alarm;
    }

    @Override
    public Instant pass() {
        MaintenanceStore.NextTimes t = store.featureNextTimes(JobExpiry.waitLimitMs(config));
        timetable.observedDbNow(t.dbNow());
        Runnable sender = deliveries;
        boolean fired = run("schedule firing", schedules::runOnce, t.nextFire(), t.dbNow());
        boolean expired = run("job expiry", expiry::runOnce, t.nextExpiry(), t.dbNow());
        boolean sent = sender != null && run("webhook delivery", sender, t.nextDelivery(), t.dbNow());
        if (fired || expired || sent) {
            t = store.featureNextTimes(JobExpiry.waitLimitMs(config));
        }
        // work that ran and is still due (another instance holds it, or it failed) is looked at
        // again in a second, not at once: the loop must not spin on it
        Instant retry = t.dbNow().plusSeconds(1);
        Instant next = earliest(null, fired ? notBefore(t.nextFire(), retry) : t.nextFire());
        next = earliest(next, expired ? notBefore(t.nextExpiry(), retry) : t.nextExpiry());
        if (sender != null) {
            next = earliest(next, sent ? notBefore(t.nextDelivery(), retry) : t.nextDelivery());
        }
        return next;
    }

    private static Instant notBefore(Instant t, Instant floor) {
        return t == null || t.isAfter(floor) ? t : floor;
    }

    private static Instant earliest(Instant a, Instant b) {
        return a == null || (b != null && b.isBefore(a)) ? b : a;
    }

    private static boolean run(String what, Runnable work, Instant due, Instant now) {
        if (due == null || due.isAfter(now)) {
            return false;
        }
        try {
            work.run();
        } catch (RuntimeException e) {
            LOG.warnf("%s skipped a pass: %s", what, e.getMessage());
        }
        return true;
    }
}
