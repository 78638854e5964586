package io.readpast.core;

import io.readpast.store.JobStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * One check per instance, shared by all its waiting claims: it asks the database which of
 * their queues have due work (scheduled jobs coming due, retries after backoff, and on SQL
 * Server enqueues on other instances) and wakes one waiter per due queue.
 *
 * <p>PostgreSQL: the check runs when a claim starts waiting on queues the last check did not
 * cover, when a job comes due (the check returns each queue's next due time; this instance's
 * delayed enqueues and retries and other instances' NOTIFYs add theirs), and when told
 * something became claimable (queue resumed); otherwise it sleeps, at most 30 s. While a
 * waited-on queue has work due that its waiters did not take (a capped queue at its cap), it
 * looks again every second. Idle waiting costs no statement. SQL Server has no NOTIFY: there
 * it checks every 200 ms while work keeps coming and every second when idle, as long as claims
 * wait. Nobody waiting: no statement at all. Safe on every instance: it only reads.
 */
@ApplicationScoped
public class DuePollTask implements BackgroundTask {

    private static final Logger LOG = Logger.getLogger(DuePollTask.class);
    private static final Duration SAFETY = Duration.ofSeconds(30);
    private static final Duration AGAIN = Duration.ofSeconds(1);
    private static final Duration IDLE = Duration.ofSeconds(1);
    private static final Duration BUSY = Duration.ofMillis(200);
    private static final long BUSY_WINDOW_MS = 10_000;

    private final JobStore store;
    private final Wakeups wakeups;
    private final Timetable timetable;
    private volatile boolean channel = true;
    private volatile long lastFoundMs;
    /** The queues the last check covered; null: every queue. */
    private volatile Set<String> covered = Set.of();

    public DuePollTask(JobStore store, Wakeups wakeups, Timetable timetable) {
        this.store = store;
        this.wakeups = wakeups;
        this.timetable = timetable;
        wakeups.onWait(this::waiting);
    }

    /**
     * Whether the engine has a channel between instances (PostgreSQL NOTIFY) that brings their
     * enqueues and due times; without one (SQL Server) this poll must find their work, so it
     * polls while claims wait. Set before the task starts.
     */
    void channel(boolean open) {
        this.channel = open;
    }

    @Override
    public String name() {
        return "readpast-due-poll";
    }

    @Override
    public Duration longest() {
        return SAFETY;
    }

    @Override
    public Duration minGap() {
        return Duration.ofMillis(10);
    }

    @Override
    public Timetable.Alarm alarm() {
        return timetable.due();
    }

    /** A claim starts waiting on these queues (null: every queue). */
    private void waiting(Collection<String> queues) {
        Set<String> known = covered;
        if (known != null && (queues == null || !known.containsAll(queues))) {
            timetable.checkDueNow();
        }
    }

    @Override
    public Instant pass() {
        covered = Set.of();  // a claim that starts waiting from here on asks for another check
        Set<String> wanted = wakeups.wantedQueues();
        covered = wanted == null ? null : Set.copyOf(wanted);
        if (wanted != null && wanted.isEmpty()) {
            return null; // nobody waits: no statement
        }
        Instant next = null;
        try {
            boolean found = false;
            Instant earliest = null;
            for (JobStore.DueQueue q : store.jobAnyDue(wanted == null ? null : List.copyOf(wanted))) {
                timetable.observedDbNow(q.dbNow());
                if (q.dueNow()) {
                    // one waiter per queue with due work, so a quiet queue's waiter is not left behind
                    wakeups.release(q.name(), 1);
                    found = true;
                } else if (q.nextDueAt() != null && (earliest == null || q.nextDueAt().isBefore(earliest))) {
                    earliest = q.nextDueAt();
                }
            }
            if (found) {
                lastFoundMs = System.currentTimeMillis();
                next = timetable.dbNowEstimate().plus(AGAIN);
            }
            if (earliest != null && (next == null || earliest.isBefore(next))) {
                next = earliest;
            }
        } catch (StoreException e) {
            LOG.debugf("Due poll failed: %s", e.getMessage());
            next = timetable.dbNowEstimate().plus(AGAIN);
        }
        if (!channel) {
            boolean busy = System.currentTimeMillis() - lastFoundMs < BUSY_WINDOW_MS;
            next = timetable.dbNowEstimate().plus(busy ? BUSY : IDLE);
        }
        return next;
    }
}
