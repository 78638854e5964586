package io.readpast.core;

import io.readpast.store.MaintenanceStore;
import io.readpast.store.ScheduleStore;
import io.readpast.store.ScheduleRow;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Recurring schedules: create, replace, read, pause, resume, delete. Firing is {@link ScheduleFiring}'s. */
@ApplicationScoped
public class Schedules {

    private static final Logger LOG = Logger.getLogger(Schedules.class);

    private final ScheduleStore store;
    private final MaintenanceStore clock;
    private final TimersTask timers;

    public Schedules(ScheduleStore store, MaintenanceStore clock, TimersTask timers) {
        this.store = store;
        this.clock = clock;
        this.timers = timers;
    }

    /**
     * Creates or replaces a schedule. Its first fire time is the first slot after the database's
     * now; a schedule that keeps its expression and time zone (and is not paused) keeps its next
     * fire time.
     */
    public ScheduleRow put(ScheduleSpec settings, Cron cron, String by) {
        Instant next = nextAfter(cron, clock.dbNow());
        ScheduleRow row = store.scheduleUpsert(row(settings, next), by);
        timers.wake();
        LOG.infof("Schedule %s set by %s: %s, job %s/%s, overlap %s, catchUp %s%s", settings.name(), Audit.who(by), cron,
                settings.queue(), settings.type(), settings.overlap(), settings.catchUp(),
                settings.paused() ? ", paused" : "");
        return row;
    }

    public ScheduleRow get(String name) {
        return store.scheduleGet(name).orElseThrow(() -> notFound(name));
    }

    public List<ScheduleRow> list(String after, int limit) {
        return store.scheduleList(after, limit);
    }

    public void delete(String name, String by) {
        if (!store.scheduleDelete(name)) {
            throw notFound(name);
        }
        LOG.infof("Schedule %s deleted by %s", name, Audit.who(by));
    }

    /** Pauses or resumes; a resumed schedule fires next at its first slot after now (no catch-up of the pause). */
    public ScheduleRow setPaused(String name, boolean paused, String by) {
        ScheduleRow current = get(name);
        Instant next = current.nextFireAt();
        if (!paused) {
            try {
                next = nextAfter(Cron.parse(current.cron(), current.timeZone()), clock.dbNow());
            } catch (Cron.InvalidCron e) {
                next = ScheduleFirer.NEVER; // unreadable since the time-zone database changed: replace it
            }
        }
        ScheduleRow row = store.scheduleSetPaused(name, paused, next).orElseThrow(() -> notFound(name));
        timers.wake();
        LOG.infof("Schedule %s %s by %s", name, paused ? "paused" : "resumed", Audit.who(by));
        return row;
    }

    /** The next {@code n} fire times from the schedule's next one (none while paused). */
    public static List<Instant> upcoming(ScheduleRow s, int n) {
        List<Instant> out = new ArrayList<>();
        if (s.paused() || s.nextFireAt() == null || !s.nextFireAt().isBefore(ScheduleFirer.NEVER)) {
            return out;
        }
        Cron cron;
        try {
            cron = Cron.parse(s.cron(), s.timeZone());
        } catch (Cron.InvalidCron e) {
            return out;
        }
        Instant t = s.nextFireAt();
        while (t != null && out.size() < n) {
            out.add(t);
            t = cron.next(t);
        }
        return out;
    }

    private static Instant nextAfter(Cron cron, Instant now) {
        Instant next = cron.next(now);
        return next == null ? ScheduleFirer.NEVER : next;
    }

    /** The row to store: the settings and the first fire time; the store keeps the rest. */
    private static ScheduleRow row(ScheduleSpec s, Instant next) {
        return new ScheduleRow(s.name(), s.cron(), s.timeZone(), s.queue(), s.type(), s.payload(), s.tags(),
                s.priority(), s.maxAttempts(), s.overlap().name(), s.catchUp().name(), s.paused(), next, null, null,
                null, null, null, null);
    }

    private static BrokerException notFound(String name) {
        return new BrokerException(BrokerException.Kind.NOT_FOUND, "No schedule named '" + name + "'.");
    }

    private static String who(String by) {
        return by == null ? "anonymous" : by;
    }
}
