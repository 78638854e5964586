package io.readpast.ops;

import io.quarkus.scheduler.Scheduled;
import io.readpast.store.Database;
import io.readpast.store.QueueRow;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Refreshes the per-queue depth and lag gauges from one queue-list statement every
 * {@code readpast.metrics.refresh} (default 15 s), so scrapes never touch the database.
 */
@ApplicationScoped
public class QueueGauges {

    private final Database database;
    private final BrokerMetrics metrics;

    public QueueGauges(Database database, BrokerMetrics metrics) {
        this.database = database;
        this.metrics = metrics;
    }

    @Scheduled(every = "${readpast.metrics.refresh:15s}", delayed = "2s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    public void refresh() {
        if (!database.started()) {
            return;
        }
        try {
            for (QueueRow q : database.start().queueList(true)) {
                QueueRow.Counts c = q.counts();
                if (c != null) {
                    metrics.queueState(q.name(), new BrokerMetrics.QueueState(c.pending(),
                            c.lagSeconds() == null ? 0 : Math.max(0, c.lagSeconds()), c.leased(), c.processing()));
                }
            }
        } catch (StoreException e) {
            // the database is down: readiness says so; the gauges keep their last values
        }
    }
}
