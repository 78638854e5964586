package io.readpast.core;

import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;

/**
 * Returns jobs whose lease expired to the queue ({@link Leases#expireLeases}), in batches until
 * a batch comes back short. Safe on every instance: the guarded writes let only one instance
 * settle a given lease.
 *
 * <p>It sleeps until the earliest lease it knows of runs out: each pass reads the next expiry
 * from the database, and every claim on this instance tells it of the leases it handed out (the
 * {@link Timetable} alarm). A lease it cannot know of (handed out by another instance since this
 * one last looked, whose own task died with it) is found on the next pass, at most
 * {@code readpast.sweeper.lease-interval} (default 4 s) later. With no leases at all, that is
 * one statement per interval.
 */
@ApplicationScoped
public class LeaseExpiryTask implements BackgroundTask {

    private final Leases leases;
    private final ReadpastConfig config;
    private final Timetable timetable;

    public LeaseExpiryTask(Leases leases, ReadpastConfig config, Timetable timetable) {
        this.leases = leases;
        this.config = config;
        this.timetable = timetable;
    }

    @Override
    public String name() {
        return "readpast-lease-expiry";
    }

    @Override
    public Duration longest() {
        return DurationConverter.parseDuration(config.sweeper().leaseInterval());
    }

    @Override
    public Timetable.Alarm alarm() {
        return timetable.leases();
    }

    @Override
    public Instant pass() {
        runOnce();
        return null; // the alarm holds the next expiry the pass read
    }

    /** Settles every expired lease now; returns how many jobs it settled. */
    public int runOnce() {
        int batch = Math.max(1, config.sweeper().leaseBatch());
        int total = 0;
        int n;
        do {
            n = leases.expireLeases(batch);
            total += n;
        } while (n > 0 && n >= batch);
        return total;
    }
}
