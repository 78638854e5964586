package io.readpast.core;

import io.quarkus.scheduler.Scheduled;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.Database;
import io.readpast.store.JobStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Jobs that must never start after their expiresAt: claims skip them already, and this
 * sweeper moves them to the dead letters (DEAD, "expired", with their webhooks). Also deletes
 * uniqueness keys whose window ran out. Runs on every instance; both take rows skip-locked,
 * so concurrent sweeps are harmless. Works in batches until a batch comes back short.
 */
@ApplicationScoped
public class ExpirySweeper {

    private static final Logger LOG = Logger.getLogger(ExpirySweeper.class);

    private final Broker broker;
    private final ReadpastConfig config;
    private final Database database;

    public ExpirySweeper(Broker broker, ReadpastConfig config, Database database) {
        this.broker = broker;
        this.config = config;
        this.database = database;
    }

    @Scheduled(every = "${readpast.sweeper.lease-interval:1s}", delayed = "2s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void sweep() {
        if (!database.started()) {
            return;
        }
        try {
            runOnce();
        } catch (StoreException e) {
            LOG.warnf("Expiry sweeper skipped a pass: %s", e.getMessage());
        }
    }

    @Scheduled(every = "${readpast.retention.interval:60s}", delayed = "11s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void purgeKeys() {
        if (!database.started()) {
            return;
        }
        try {
            purgeKeysOnce();
        } catch (StoreException e) {
            LOG.warnf("Uniqueness keys were not purged this time: %s", e.getMessage());
        }
    }

    /** Moves every expired PENDING job to the dead letters now; returns how many. */
    public int runOnce() {
        int batch = Math.max(1, config.sweeper().leaseBatch());
        int total = 0;
        int n;
        do {
            n = broker.expirePending(batch);
            total += n;
        } while (n > 0 && n >= batch);
        return total;
    }

    /** Deletes uniqueness keys whose window ran out; returns how many. */
    public int purgeKeysOnce() {
        JobStore store = database.start();
        int batch = Math.max(1, config.retention().batch());
        int total = 0;
        int n;
        do {
            n = store.uniqueKeyPurgeOld(batch);
            total += n;
        } while (n > 0 && n >= batch);
        return total;
    }
}
