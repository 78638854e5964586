package io.readpast.core;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.concurrent.TimeUnit;

/**
 * Returns jobs whose lease expired to the queue. Runs on every instance; the guarded writes
 * make concurrent sweeps harmless. Works in batches until a batch comes back short.
 *
 * <p>It sleeps until the earliest lease it knows of runs out: each pass reads the next expiry
 * from the database, and every claim on this instance tells it of the leases it handed out. A
 * lease it cannot know of (handed out by another instance since this one last looked, whose own
 * sweeper died with it) is found on the next pass, at most {@code readpast.sweeper.lease-interval}
 * (default 4 s) later. With no leases at all, that is one statement per interval.
 */
@ApplicationScoped
public class LeaseSweeper {

    private static final Logger LOG = Logger.getLogger(LeaseSweeper.class);
    private static final long MIN_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final Broker broker;
    private final ReadpastConfig config;
    private final Timetable timetable;
    private volatile boolean running;
    private volatile Thread thread;

    public LeaseSweeper(Broker broker, ReadpastConfig config, Timetable timetable) {
        this.broker = broker;
        this.config = config;
        this.timetable = timetable;
    }

    /** Starts the sweeping loop (once the database is up). */
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = Thread.ofVirtual().name("readpast-lease-sweeper").start(this::loop);
    }

    void stop(@Observes ShutdownEvent event) {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    private void loop() {
        long longest = Math.max(MIN_GAP_NANOS, DurationConverter.parseDuration(config.sweeper().leaseInterval()).toNanos());
        Timetable.Alarm alarm = timetable.leases();
        while (running) {
            long started = System.nanoTime();
            alarm.arm();
            try {
                runOnce();
            } catch (StoreException e) {
                LOG.warnf("Lease sweeper skipped a pass: %s", e.getMessage());
            } catch (RuntimeException e) {
                LOG.warnf(e, "Lease sweeper pass failed; it will try again");
            }
            try {
                alarm.sleepUntil(started + longest, started + MIN_GAP_NANOS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Settles every expired lease now; returns how many jobs it settled. */
    public int runOnce() {
        int batch = Math.max(1, config.sweeper().leaseBatch());
        int total = 0;
        int n;
        do {
            n = broker.expireLeases(batch);
            total += n;
        } while (n > 0 && n >= batch);
        return total;
    }
}
