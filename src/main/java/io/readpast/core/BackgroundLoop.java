package io.readpast.core;

import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A background loop of one instance that sleeps until it has something to do, like the lease
 * sweeper and the due poller (see {@link Timetable}): each pass returns when it next needs to
 * look (a time on the database clock, or null), and the loop sleeps until then, or at most
 * {@code longest}, or until this instance asks it to look earlier ({@link #wakeAt}, {@link #wake}).
 * Idle, it runs one pass per {@code longest}. Runs on a virtual thread.
 */
public final class BackgroundLoop {

    private static final Logger LOG = Logger.getLogger(BackgroundLoop.class);
    /** Late by this much rather than early: a look just before the time would find nothing. */
    private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /** One pass; returns when the next pass is needed (database clock), or null for "at the latest". */
    @FunctionalInterface
    public interface Pass {
        Instant run() throws Exception;
    }

    private final String name;
    private final Timetable timetable;
    private final Pass pass;
    private final Timetable.Alarm alarm = new Timetable.Alarm();
    private final long longestNanos;
    private final long minGapNanos;
    private volatile boolean running;
    private volatile Thread thread;

    /**
     * @param longest the longest sleep (the loop looks at least this often)
     * @param minGap  the shortest time between two passes (wake-ups in between are coalesced)
     */
    public BackgroundLoop(String name, Timetable timetable, Duration longest, Duration minGap, Pass pass) {
        this.name = name;
        this.timetable = timetable;
        this.pass = pass;
        this.longestNanos = Math.max(1, longest.toNanos());
        this.minGapNanos = Math.max(0, minGap.toNanos());
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = Thread.ofVirtual().name(name).start(this::loop);
    }

    public void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** Look again at once (or after the minimum gap). */
    public void wake() {
        alarm.wakeBy(System.nanoTime());
    }

    /** Look again no later than {@code dbTime} (database clock). */
    public void wakeAt(Instant dbTime) {
        alarm.wakeBy(timetable.nanosAt(dbTime) + MARGIN_NANOS);
    }

    private void loop() {
        while (running) {
            long started = System.nanoTime();
            long next = started + longestNanos;
            alarm.arm();
            try {
                Instant at = pass.run();
                if (at != null) {
                    long n = timetable.nanosAt(at) + MARGIN_NANOS;
                    next = n - next < 0 ? n : next;
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                LOG.warnf("%s skipped a pass: %s", name, e.getMessage());
            }
            try {
                alarm.sleepUntil(next, started + minGapNanos);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
