package io.readpast.core;

import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.MaintenanceStore;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;

/**
 * Deletes finished jobs past their retention in small batches (archive: SUCCEEDED and
 * CANCELLED; dead letters: DEAD), then finished batches past theirs with the jobs they still
 * have there, every readpast.retention.interval, each until a round comes back short. Safe on every instance: the deletes skip rows another instance holds.
 */
@ApplicationScoped
public class RetentionTask extends PeriodicTask {

    private static final Logger LOG = Logger.getLogger(RetentionTask.class);

    private final MaintenanceStore store;
    private final ReadpastConfig config;

    public RetentionTask(MaintenanceStore store, ReadpastConfig config) {
        super("readpast-retention", () -> DurationConverter.parseDuration(config.retention().interval()),
                Duration.ofSeconds(5));
        this.store = store;
        this.config = config;
    }

    @Override
    protected void runPass() {
        runOnce();
    }

    /** Deletes everything past retention now; returns how many jobs and batches went (a batch's jobs not counted). */
    public int runOnce() {
        int batch = Math.max(1, config.retention().batch());
        long archiveMs = config.retention().succeeded().toMillis();
        long deadMs = config.retention().dead().toMillis();
        int total = 0;
        int n;
        do {
            n = store.archivePurgeOld(archiveMs, batch);
            total += n;
        } while (n > 0 && n >= batch);
        do {
            n = store.deadPurgeOld(deadMs, batch);
            total += n;
        } while (n > 0 && n >= batch);
        long batchesMs = config.retention().batches().toMillis();
        do {
            n = store.batchPurgeOld(batchesMs, batch);
            total += n;
        } while (n > 0 && n >= batch);
        if (total > 0) {
            LOG.debugf("Retention deleted %d finished jobs and batches", total);
        }
        return total;
    }
}
