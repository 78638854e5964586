package io.readpast.core;

import io.quarkus.runtime.ShutdownEvent;
import io.readpast.config.Engine;
import io.readpast.store.JobStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
 * wait. Nobody waiting: no statement at all.
 */
@ApplicationScoped
public class DuePoller {

    private static final Logger LOG = Logger.getLogger(DuePoller.class);
    private static final long SAFETY_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long AGAIN_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MIN_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long IDLE_MS = 1000;
    private static final long BUSY_MS = 200;
    private static final long BUSY_WINDOW_MS = 10_000;

    private final Wakeups wakeups;
    private final Timetable timetable;
    private volatile boolean running;
    private volatile Thread thread;
    private volatile long lastFoundMs;
    /** The queues the last check covered; null: every queue. */
    private volatile Set<String> covered = Set.of();

    public DuePoller(Wakeups wakeups, Timetable timetable) {
        this.wakeups = wakeups;
        this.timetable = timetable;
    }

    public synchronized void start(JobStore store, Engine engine) {
        if (running) {
            return;
        }
        running = true;
        wakeups.onWait(this::waiting);
        thread = Thread.ofVirtual().name("readpast-due-poller").start(() -> loop(store, engine));
    }

    void stop(@Observes ShutdownEvent event) {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** A claim starts waiting on these queues (null: every queue). */
    private void waiting(Collection<String> queues) {
        Set<String> known = covered;
        if (known != null && (queues == null || !known.containsAll(queues))) {
            timetable.checkDueNow();
        }
    }

    private void loop(JobStore store, Engine engine) {
        Timetable.Alarm alarm = timetable.due();
        boolean notify = engine == Engine.POSTGRESQL;
        while (running) {
            long started = System.nanoTime();
            long next = started + SAFETY_NANOS;
            alarm.arm();
            covered = Set.of();  // a claim that starts waiting from here on asks for another check
            Set<String> wanted = wakeups.wantedQueues();
            covered = wanted == null ? null : Set.copyOf(wanted);
            if (wanted == null || !wanted.isEmpty()) {
                boolean found = false;
                try {
                    List<JobStore.DueQueue> due = store.jobAnyDue(wanted == null ? null : List.copyOf(wanted));
                    Instant earliest = null;
                    for (JobStore.DueQueue q : due) {
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
                        next = System.nanoTime() + AGAIN_NANOS;
                    }
                    if (earliest != null) {
                        long at = timetable.nanosAt(earliest);
                        next = at - next < 0 ? at : next;
                    }
                } catch (StoreException e) {
                    LOG.debugf("Due poll failed: %s", e.getMessage());
                    next = System.nanoTime() + AGAIN_NANOS;
                } catch (RuntimeException e) {
                    LOG.warnf(e, "Due poll failed unexpectedly; it will try again");
                    next = System.nanoTime() + AGAIN_NANOS;
                }
                if (!notify) {
                    boolean busy = System.currentTimeMillis() - lastFoundMs < BUSY_WINDOW_MS;
                    next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(busy ? BUSY_MS : IDLE_MS);
                }
            }
            try {
                alarm.sleepUntil(next, started + MIN_GAP_NANOS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
