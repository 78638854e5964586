package io.readpast.core;

import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.ScheduleRow;
import io.readpast.store.StoreException;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Fires due schedules: one pass looks up the schedules due now (database clock) and fires each
 * in its own transaction (see {@link JobStore#scheduleFire}). Any number of firers may run at
 * once, in one process or many: a schedule being fired is locked and skipped by the others, and
 * each slot is recorded under a unique key, so it enqueues at most one job.
 *
 * <p>Which slots fire: a slot seen within {@code misfireGrace} of its time is on time and
 * always fires; older ones were missed (all instances down, or the schedule's sweeper stalled),
 * and the schedule's catch-up policy decides: ALL fires every missed slot (at most
 * {@code catchUpMax} per pass; the rest follow in the next passes), LATEST fires only the most
 * recent missed slot, NONE fires none of them.
 */
public final class ScheduleFirer {

    private static final Logger LOG = Logger.getLogger(ScheduleFirer.class);
    /** The next fire time of a schedule that will never fire again. */
    public static final Instant NEVER = Instant.parse("9999-12-31T23:59:59Z");

    private final JobStore store;
    private final int batch;
    private final int catchUpMax;
    private final Duration misfireGrace;
    private final int defaultMaxAttempts;
    private final Consumer<JobRow> enqueued;

    /**
     * @param enqueued told about every job a firing enqueued, after its transaction committed
     */
    public ScheduleFirer(JobStore store, int batch, int catchUpMax, Duration misfireGrace, int defaultMaxAttempts,
                         Consumer<JobRow> enqueued) {
        this.store = store;
        this.batch = Math.max(1, batch);
        this.catchUpMax = Math.max(1, catchUpMax);
        this.misfireGrace = misfireGrace;
        this.defaultMaxAttempts = defaultMaxAttempts;
        this.enqueued = enqueued;
    }

    /** Fires every schedule due now; returns how many jobs were enqueued. */
    public int runOnce() {
        int total = 0;
        List<String> due;
        do {
            due = store.scheduleListDue(batch);
            int progressed = 0;
            for (String name : due) {
                try {
                    Optional<ScheduleRow.Fired> fired = store.scheduleFire(name, this::plan, defaultMaxAttempts);
                    if (fired.isPresent()) {
                        progressed++;
                        for (JobRow job : fired.get().jobs()) {
                            total++;
                            enqueued.accept(job);
                        }
                    }
                } catch (StoreException e) {
                    if (e.kind() == StoreException.Kind.UNAVAILABLE) {
                        throw e;
                    }
                    LOG.warnf("Schedule %s could not fire: %s", name, e.getMessage());
                }
            }
            // another full batch may be waiting; stop when nothing moved (others hold them)
            if (progressed == 0) {
                break;
            }
        } while (due.size() >= batch);
        return total;
    }

    /** Decides the slots to fire for a locked, due schedule, and the next one to wait for. */
    ScheduleRow.FirePlan plan(ScheduleRow.Due due) {
        ScheduleRow s = due.schedule();
        Cron cron;
        try {
            cron = Cron.parse(s.cron(), s.timeZone());
        } catch (Cron.InvalidCron e) {
            // stored expressions were checked; only a changed time-zone database gets here
            LOG.errorf("Schedule %s can no longer be read (%s); it will not fire until it is replaced",
                    s.name(), e.getMessage());
            return new ScheduleRow.FirePlan(List.of(), NEVER);
        }
        Instant now = due.dbNow();
        Instant first = s.nextFireAt();
        List<Instant> slots = new ArrayList<>();
        if ("ALL".equals(s.catchUp())) {
            Instant t = first;
            while (t != null && !t.isAfter(now) && slots.size() < catchUpMax) {
                slots.add(t);
                t = cron.next(t);
            }
            return new ScheduleRow.FirePlan(slots, t == null ? NEVER : t);
        }
        Instant cutoff = now.minus(misfireGrace);
        Instant onTime = first;
        if (!first.isAfter(cutoff)) {
            // some slots were missed: LATEST fires the most recent of them, NONE none
            if ("LATEST".equals(s.catchUp())) {
                slots.add(latestSlot(cron, first, cutoff));
            }
            onTime = cron.next(cutoff);
        }
        Instant t = onTime;
        while (t != null && !t.isAfter(now) && slots.size() < catchUpMax) {
            slots.add(t);
            t = cron.next(t);
        }
        return new ScheduleRow.FirePlan(slots, t == null ? NEVER : t);
    }

    /** The last slot at or before {@code until}, given that {@code first} is one (and is not after it). */
    static Instant latestSlot(Cron cron, Instant first, Instant until) {
        Instant t = first;
        // after a long pause, start near the end rather than walk every slot since first
        for (Duration window : List.of(Duration.ofMinutes(1), Duration.ofHours(1), Duration.ofDays(1))) {
            Instant from = until.minus(window);
            if (from.isAfter(first)) {
                Instant c = cron.next(from.minusNanos(1));
                if (c != null && !c.isAfter(until)) {
                    t = c;
                    break;
                }
            }
        }
        while (true) {
            Instant n = cron.next(t);
            if (n == null || n.isAfter(until)) {
                return t;
            }
            t = n;
        }
    }
}
