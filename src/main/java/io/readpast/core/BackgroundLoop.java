package io.readpast.core;

import io.readpast.store.StoreException;
import org.jboss.logging.Logger;

import java.time.Instant;

/**
 * Runs one {@link BackgroundTask} on a virtual thread: a pass, then sleep until the time the pass
 * returned, or at most the task's longest sleep, or until someone rings the task's alarm; never
 * two passes closer than the task's minimum gap.
 */
final class BackgroundLoop {

    private static final Logger LOG = Logger.getLogger(BackgroundLoop.class);

    private final BackgroundTask task;
    private final Timetable timetable;
    private final Timetable.Alarm alarm;
    private final long longestNanos;
    private final long minGapNanos;
    private volatile boolean running;
    private volatile Thread thread;

    BackgroundLoop(BackgroundTask task, Timetable timetable) {
        this.task = task;
        this.timetable = timetable;
        this.alarm = task.alarm() != null ? task.alarm() : new Timetable.Alarm();
        this.longestNanos = Math.max(1, task.longest().toNanos());
        this.minGapNanos = Math.max(0, task.minGap().toNanos());
    }

    synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = Thread.ofVirtual().name(task.name()).start(this::loop);
    }

    void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    private void loop() {
        try {
            Thread.sleep(task.firstDelay().toMillis());
        } catch (InterruptedException e) {
            return;
        }
        while (running) {
            long started = System.nanoTime();
            long next = started + longestNanos;
            alarm.arm();
            try {
                Instant at = task.pass();
                if (at != null) {
                    long n = timetable.lookAt(at);
                    next = n - next < 0 ? n : next;
                }
            } catch (InterruptedException e) {
                return;
            } catch (StoreException e) {
                LOG.warnf("%s skipped a pass: %s", task.name(), e.getMessage());
            } catch (Exception e) {
                LOG.warnf(e, "%s pass failed; it will try again", task.name());
            }
            try {
                alarm.sleepUntil(next, started + minGapNanos);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

}
