package io.readpast.core;

import io.quarkus.runtime.ShutdownEvent;
import io.readpast.store.JobStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.Set;

/**
 * One poll per instance, shared by all its waiting claims: while claims wait, it asks the
 * database once per tick whether any of their queues has due work (scheduled jobs coming due,
 * retries after backoff, expired leases, and on SQL Server enqueues on other instances) and
 * wakes one waiter when so. It ticks every second when the engine has a channel between instances
 * (other instances' enqueues arrive by it: PostgreSQL NOTIFY); without one (SQL Server) it polls
 * every 200 ms while work keeps coming and backs off to 1 s when idle.
 * Each queue with due work wakes one of its waiters.
 * Nobody waiting: no statement at all.
 */
@ApplicationScoped
public class DuePoller {

    private static final Logger LOG = Logger.getLogger(DuePoller.class);
    private static final long IDLE_MS = 1000;
    private static final long BUSY_MS = 200;
    private static final long BUSY_WINDOW_MS = 10_000;

    private final Wakeups wakeups;
    private volatile boolean running;
    private volatile Thread thread;
    private volatile long lastFoundMs;

    public DuePoller(Wakeups wakeups) {
        this.wakeups = wakeups;
    }

    /** {@code fasterWhenBusy}: the engine has no channel between instances, so this poll must find their work. */
    public synchronized void start(JobStore store, boolean fasterWhenBusy) {
        if (running) {
            return;
        }
        running = true;
        thread = Thread.ofVirtual().name("readpast-due-poller").start(() -> loop(store, fasterWhenBusy));
    }

    void stop(@Observes ShutdownEvent event) {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    private void loop(JobStore store, boolean fasterWhenBusy) {
        while (running) {
            long now = System.currentTimeMillis();
            boolean busy = fasterWhenBusy && now - lastFoundMs < BUSY_WINDOW_MS;
            try {
                Thread.sleep(busy ? BUSY_MS : IDLE_MS);
            } catch (InterruptedException e) {
                return;
            }
            if (wakeups.waiting() == 0) {
                continue;
            }
            Set<String> wanted = wakeups.wantedQueues();
            if (wanted != null && wanted.isEmpty()) {
                continue;
            }
            try {
                List<String> due = store.jobAnyDue(wanted == null ? null : List.copyOf(wanted));
                if (!due.isEmpty()) {
                    lastFoundMs = System.currentTimeMillis();
                    // one waiter per queue with due work, so a quiet queue's waiter is not left behind
                    due.forEach(q -> wakeups.release(q, 1));
                }
            } catch (StoreException e) {
                LOG.debugf("Due poll failed: %s", e.getMessage());
            } catch (RuntimeException e) {
                LOG.warnf(e, "Due poll failed unexpectedly; it will try again");
            }
        }
    }
}
