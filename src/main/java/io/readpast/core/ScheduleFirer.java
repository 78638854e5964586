package io.readpast.core;

import io.readpast.store.JobRow;
import io.readpast.store.ScheduleStore;
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
 * always fires; older ones were missed (all instances down, or their timers stalled),
 * and the schedule's catch-up policy decides: ALL fires every missed slot (at most
 * {@code catchUpMax} per pass; the rest follow in the next passes), LATEST fires only the most
 * recent missed slot, NONE fires none of them.
 */
public final class ScheduleFirer {

    private static final Logger LOG = Logger.getLogger(ScheduleFirer.class);
    /** The next fire time of a schedule that will never fire again. */
    public static final Instant NEVER = Instant.parse("9999-12-31T23:59:59Z");

    private final ScheduleStore store;
    private final int batch;
    private final int catchUpMax;
    private final Duration misfireGrace;
    private final int defaultMaxAttempts;
    private final Consumer<JobRow> enqueued;

    /**
     * @param enqueued told about every job a firing enqueued, after its transaction committed
     */
    public ScheduleFirer(ScheduleStore store, int batch, int catchUpMax, Duration misfireGrace, int defaultMaxAttempts,
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

    /**
     * Decides, for a locked, due schedule, which slots to handle (catch-up), which of them
     * enqueue a job (overlap), and the next slot to wait for. The store records what it decides.
     */
    ScheduleRow.FirePlan plan(ScheduleRow.Due due) {
        Slots slots = slots(due);
        return new ScheduleRow.FirePlan(Overlap.of(due.schedule().overlap()).decide(slots.at(), due.lastJobLive()),
                slots.next());
    }

    /** The slots to handle, in order, and the next one to wait for. */
    record Slots(List<Instant> at, Instant next) {
    }

    Slots slots(ScheduleRow.Due due) {
        ScheduleRow s = due.schedule();
        Cron cron;
        try {
            cron = Cron.parse(s.cron(), s.timeZone());
        } catch (Cron.InvalidCron e) {
            // stored expressions were checked; only a changed time-zone database gets here
            LOG.errorf("Schedule %s can no longer be read (%s); it will not fire until it is replaced",
                    s.name(), e.getMessage());
            return new Slots(List.of(), NEVER);
        }
        Instant now = due.dbNow();
        Instant first = s.nextFireAt();
        List<Instant> slots = new ArrayList<>();
        CatchUp catchUp = CatchUp.of(s.catchUp());
        if (catchUp == CatchUp.ALL) {
            Instant t = first;
            while (t != null && !t.isAfter(now) && slots.size() < catchUpMax) {
                slots.add(t);
                t = cron.next(t);
            }
            return new Slots(slots, t == null ? NEVER : t);
        }
        Instant cutoff = now.minus(misfireGrace);
        Instant onTime = first;
        if (!first.isAfter(cutoff)) {
            // some slots were missed: LATEST fires the most recent of them, NONE none
            if (catchUp == CatchUp.LATEST) {
                slots.add(latestSlot(cron, first, cutoff));
            }
            onTime = cron.next(cutoff);
        }
        Instant t = onTime;
        while (t != null && !t.isAfter(now) && slots.size() < catchUpMax) {
            slots.add(t);
            t = cron.next(t);
        }
        return new Slots(slots, t == null ? NEVER : t);
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
