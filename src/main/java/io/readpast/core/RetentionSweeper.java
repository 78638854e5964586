package io.readpast.core;

import io.quarkus.scheduler.Scheduled;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.JobStore;
import io.readpast.store.Database;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Deletes finished jobs past their retention in small batches (archive: SUCCEEDED and
 * CANCELLED; dead letters: DEAD). Runs on every instance: the deletes skip rows another
 * sweeper holds. Works until a batch comes back short.
 */
@ApplicationScoped
public class RetentionSweeper {

    private static final Logger LOG = Logger.getLogger(RetentionSweeper.class);

    private final Database database;
    private final ReadpastConfig config;

    public RetentionSweeper(Database database, ReadpastConfig config) {
        this.database = database;
        this.config = config;
    }

    @Scheduled(every = "${readpast.retention.interval:60s}", delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void sweep() {
        if (!database.started()) {
            return;
        }
        try {
            runOnce();
        } catch (StoreException e) {
            LOG.warnf("Retention sweeper skipped a pass: %s", e.getMessage());
        }
    }

    /** Deletes everything past retention now; returns how many rows went. */
    public int runOnce() {
        JobStore store = database.start();
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
        if (total > 0) {
            LOG.debugf("Retention sweeper deleted %d finished jobs", total);
        }
        return total;
    }
}
