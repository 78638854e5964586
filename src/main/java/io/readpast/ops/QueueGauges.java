package io.readpast.ops;

import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.BackgroundTask;
import io.readpast.store.QueueRow;
import io.readpast.store.QueueStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;

/**
 * Refreshes the per-queue depth and lag gauges from one queue-list statement every
 * {@code readpast.metrics.refresh} (default 15 s), so scrapes never touch the database. Safe on
 * every instance: it only reads. When the database is down the gauges keep their last values
 * (readiness says so).
 */
@ApplicationScoped
public class QueueGauges implements BackgroundTask {

    private final QueueStore store;
    private final BrokerMetrics metrics;
    private final ReadpastConfig config;

    public QueueGauges(QueueStore store, BrokerMetrics metrics, ReadpastConfig config) {
        this.store = store;
        this.metrics = metrics;
        this.config = config;
    }

    @Override
    public String name() {
        return "readpast-queue-gauges";
    }

    @Override
    public Duration longest() {
        return DurationConverter.parseDuration(config.metrics().refresh());
    }

    @Override
    public Duration firstDelay() {
        return Duration.ofSeconds(2);
    }

    @Override
    public Instant pass() {
        try {
            refresh();
        } catch (StoreException e) {
            // the database is down: readiness says so; the gauges keep their last values
        }
        return null;
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
