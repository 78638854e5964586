package io.readpast.core;

import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.HousekeepingAges;
import io.readpast.store.MaintenanceStore;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;

/**
 * Keeps the feature tables small: records of fired schedule slots (readpast.schedules.fire-retention),
 * uniqueness keys whose window ran out, and finished webhook deliveries
 * (readpast.webhooks.delivered-retention, dead-retention). One statement per pass, every
 * readpast.retention.housekeeping-interval (5 min); more passes only while a pass came back full.
 * Safe on every instance: rows are deleted skip-locked.
 */
@ApplicationScoped
public class HousekeepingTask extends PeriodicTask {

    private static final Logger LOG = Logger.getLogger(HousekeepingTask.class);

    private final MaintenanceStore store;
    private final ReadpastConfig config;
    private final io.readpast.store.QueueStore queues;

    public HousekeepingTask(MaintenanceStore store, io.readpast.store.QueueStore queues, ReadpastConfig config) {
        super("readpast-housekeeping", () -> DurationConverter.parseDuration(config.retention().housekeepingInterval()),
                Duration.ofSeconds(37));
        this.store = store;
        this.queues = queues;
        this.config = config;
    }

    @Override
    protected void runPass() {
        runOnce();
    }

    /** Deletes what is past its retention now; returns how many rows went. */
    public int runOnce() {
        int batch = Math.max(1, config.retention().batch());
        HousekeepingAges ages = new HousekeepingAges(config.schedules().fireRetention().toMillis(),
                config.webhooks().deliveredRetention().toMillis(), config.webhooks().deadRetention().toMillis(), batch);
        int total = 0;
        boolean full;
        do {
            MaintenanceStore.Purged n = store.housekeepingPurge(ages);
            total += n.total();
            full = n.full(batch);
        } while (full);
        // a job that came back to pending without a key into a fair queue (leased while the queue
        // became fair, or stored by an enqueue in flight just then) joins the key '' here
        int keyed;
        do {
            keyed = queues.queueFairKeys(null, batch);
            total += keyed;
        } while (keyed >= batch);
        if (total > 0) {
            LOG.debugf("Housekeeping deleted %d rows", total);
        }
        return total;
    }
}
