package io.readpast.core;

import io.quarkus.scheduler.Scheduled;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.Database;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Returns jobs whose lease expired to the queue. Runs on every instance; the guarded writes
 * make concurrent sweeps harmless. Works in batches until a batch comes back short.
 */
@ApplicationScoped
public class LeaseSweeper {

    private static final Logger LOG = Logger.getLogger(LeaseSweeper.class);

    private final Broker broker;
    private final ReadpastConfig config;
    private final Database database;

    public LeaseSweeper(Broker broker, ReadpastConfig config, Database database) {
        this.broker = broker;
        this.config = config;
        this.database = database;
    }

    @Scheduled(every = "${readpast.sweeper.lease-interval:1s}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void sweep() {
        if (!database.started()) {
            return;
        }
        try {
            runOnce();
        } catch (StoreException e) {
            LOG.warnf("Lease sweeper skipped a pass: %s", e.getMessage());
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
