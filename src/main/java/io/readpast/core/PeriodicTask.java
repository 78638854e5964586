package io.readpast.core;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/** A {@link BackgroundTask} that runs {@link #runOnce} on a fixed cadence, nothing waking it earlier. */
public abstract class PeriodicTask implements BackgroundTask {

    private String name;
    private Supplier<Duration> every;
    private Duration firstDelay;

    /** For CDI's client proxies only. */
    protected PeriodicTask() {
    }

    /**
     * @param every      the cadence (read when the task starts: a configuration value)
     * @param firstDelay how long after start-up the first pass runs
     */
    protected PeriodicTask(String name, Supplier<Duration> every, Duration firstDelay) {
        this.name = name;
        this.every = every;
        this.firstDelay = firstDelay;
    }

    /** One pass of the work. */
    protected abstract void runPass();

    @Override
    public String name() {
        return name;
    }

    @Override
    public Duration longest() {
        return every.get();
    }

    @Override
    public Duration firstDelay() {
        return firstDelay;
    }

    @Override
    public Instant pass() {
        runPass();
        return null;
    }
}
