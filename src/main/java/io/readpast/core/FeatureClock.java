package io.readpast.core;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.Database;
import io.readpast.store.JobStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * One background loop per instance for the timed features: schedule slots coming due, jobs
 * expiring (expiresAt), webhook deliveries coming due (retries, and deliveries another
 * instance leased and left). One statement (feature_next_times) tells it when each is next
 * due, on the database clock; it runs the tasks that are due and sleeps until the earliest of
 * the rest, or until this instance asks it to look (a schedule set here, a job with an expiry
 * enqueued here, jobs finished here), at most readpast.sweeper.timers-interval. Idle, that is
 * one statement per interval for all three features. Like every sweeper it runs on every
 * instance; each task is safe to run everywhere at once.
 */
@ApplicationScoped
public class FeatureClock {

    private static final Logger LOG = Logger.getLogger(FeatureClock.class);

    /** The timed work, registered by the feature that does it. */
    public enum Task {
        SCHEDULES, EXPIRY, DELIVERIES
    }

    private final Database database;
    private final ReadpastConfig config;
    private final Timetable timetable;
    private final Map<Task, Runnable> tasks = new EnumMap<>(Task.class);
    private volatile BackgroundLoop loop;

    public FeatureClock(Database database, ReadpastConfig config, Timetable timetable) {
        this.database = database;
        this.config = config;
        this.timetable = timetable;
    }

    void onStart(@Observes StartupEvent event) {
        Duration longest = DurationConverter.parseDuration(config.sweeper().timersInterval());
        loop = new BackgroundLoop("readpast-feature-clock", timetable, longest, Duration.ofMillis(20), this::pass);
        loop.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        BackgroundLoop l = loop;
        if (l != null) {
            l.stop();
        }
    }

    /** Runs {@code work} whenever {@code task} is due (registered once, at start-up). */
    public synchronized void register(Task task, Runnable work) {
        tasks.put(task, work);
    }

    /** Look at once (something was set or finished on this instance). */
    public void wake() {
        BackgroundLoop l = loop;
        if (l != null) {
            l.wake();
        }
    }

    /** Look no later than {@code dbTime} (database clock). */
    public void wakeAt(Instant dbTime) {
        BackgroundLoop l = loop;
        if (l != null && dbTime != null) {
            l.wakeAt(dbTime);
        }
    }

    private Instant pass() {
        if (!database.started()) {
            return Instant.now().plusSeconds(1);
        }
        JobStore store = database.start();
        JobStore.NextTimes t = store.featureNextTimes();
        timetable.observedDbNow(t.dbNow());
        boolean schedules = run(Task.SCHEDULES, t.nextFire(), t.dbNow());
        boolean expiry = run(Task.EXPIRY, t.nextExpiry(), t.dbNow());
        boolean deliveries = run(Task.DELIVERIES, t.nextDelivery(), t.dbNow());
        if (schedules || expiry || deliveries) {
            t = store.featureNextTimes();
        }
        // work that ran and is still due (another instance holds it, or it failed) is looked at
        // again in a second, not at once: the loop must not spin on it
        Instant retry = t.dbNow().plusSeconds(1);
        Instant next = earliest(null, schedules ? notBefore(t.nextFire(), retry) : t.nextFire());
        next = earliest(next, expiry ? notBefore(t.nextExpiry(), retry) : t.nextExpiry());
        if (registered(Task.DELIVERIES)) {
            next = earliest(next, deliveries ? notBefore(t.nextDelivery(), retry) : t.nextDelivery());
        }
        return next;
    }

    private static Instant notBefore(Instant t, Instant floor) {
        return t == null || t.isAfter(floor) ? t : floor;
    }

    private static Instant earliest(Instant a, Instant b) {
        return a == null || (b != null && b.isBefore(a)) ? b : a;
    }

    private synchronized boolean registered(Task task) {
        return tasks.containsKey(task);
    }

    private boolean run(Task task, Instant due, Instant now) {
        Runnable work;
        synchronized (this) {
            work = tasks.get(task);
        }
        if (work == null || due == null || due.isAfter(now)) {
            return false;
        }
        try {
            work.run();
        } catch (RuntimeException e) {
            LOG.warnf("%s skipped a pass: %s", task, e.getMessage());
        }
        return true;
    }
}
