package io.readpast.ops;

import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.PeriodicTask;
import io.readpast.store.QueueRow;
import io.readpast.store.QueueStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;

/**
 * Refreshes the per-queue depth and lag gauges from one queue-list statement every
 * {@code readpast.metrics.refresh} (default 15 s), so scrapes never touch the database. Safe on
 * every instance: it only reads. When the database is down the gauges keep their last values
 * (readiness says so).
 */
@ApplicationScoped
public class QueueGauges extends PeriodicTask {

    private final QueueStore store;
    private final BrokerMetrics metrics;

    public QueueGauges(QueueStore store, BrokerMetrics metrics, ReadpastConfig config) {
        super("readpast-queue-gauges", () -> DurationConverter.parseDuration(config.metrics().refresh()),
                Duration.ofSeconds(2));
        this.store = store;
        this.metrics = metrics;
    }

    @Override
    protected void runPass() {
        try {
            refresh();
        } catch (StoreException e) {
            // the database is down: readiness says so; the gauges keep their last values
        }
    }

    /** Reads every queue's counts now into the gauges. */
    public void refresh() {
        for (QueueRow q : store.queueList(true)) {
            QueueRow.Counts c = q.counts();
            if (c != null) {
                metrics.queueState(q.name(), new BrokerMetrics.QueueState(c.pending(),
                        c.lagSeconds() == null ? 0 : Math.max(0, c.lagSeconds()), c.leased(), c.processing()));
            }
        }
    }
}
