package io.readpast.core;

import io.quarkus.scheduler.Scheduled;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.Database;
import io.readpast.store.JobStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Keeps the feature tables small: records of fired schedule slots (readpast.schedules.fire-retention),
 * uniqueness keys whose window ran out, and finished webhook deliveries
 * (readpast.webhooks.delivered-retention, dead-retention). One statement per pass, every
 * readpast.retention.housekeeping-interval (5 min), on every instance (rows are deleted skip-locked); more passes
 * only while a pass came back full.
 */
@ApplicationScoped
public class Housekeeping {

    private static final Logger LOG = Logger.getLogger(Housekeeping.class);

    private final Database database;
    private final ReadpastConfig config;

    public Housekeeping(Database database, ReadpastConfig config) {
        this.database = database;
        this.config = config;
    }

    @Scheduled(every = "${readpast.retention.housekeeping-interval:5m}", delayed = "37s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void sweep() {
        if (!database.started()) {
            return;
        }
        try {
            runOnce();
        } catch (StoreException e) {
            LOG.warnf("Housekeeping skipped a pass: %s", e.getMessage());
        }
    }

    /** Deletes what is past its retention now; returns how many rows went. */
    public int runOnce() {
        JobStore store = database.start();
        int batch = Math.max(1, config.retention().batch());
        int total = 0;
        boolean full;
        do {
            int[] n = store.housekeepingPurge(config.schedules().fireRetention().toMillis(),
                    config.webhooks().deliveredRetention().toMillis(), config.webhooks().deadRetention().toMillis(), batch);
            total += n[0] + n[1] + n[2];
            full = n[0] >= batch || n[1] >= batch || n[2] >= batch;
        } while (full);
        if (total > 0) {
            LOG.debugf("Housekeeping deleted %d rows", total);
        }
        return total;
    }
}
