package io.readpast.core;

import io.quarkus.runtime.StartupEvent;
import io.readpast.config.ReadpastConfig;
import io.readpast.ops.BrokerMetrics;
import io.readpast.store.Database;
import io.readpast.store.JobStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.List;

/**
 * Jobs that must never start after their expiresAt: claims skip them already, and this
 * sweeper moves them to the dead letters (DEAD, "expired", with their webhooks) when the
 * {@link FeatureClock} finds one due (at once for jobs enqueued here; within
 * readpast.sweeper.timers-interval for others). Runs on every instance: rows are taken
 * skip-locked, so concurrent sweeps are harmless.
 */
@ApplicationScoped
public class ExpirySweeper {

    private static final Logger LOG = Logger.getLogger(ExpirySweeper.class);

    private final Database database;
    private final ReadpastConfig config;
    private final BrokerMetrics metrics;
    private final FinishedJobs finished;
    private final FeatureClock clock;

    public ExpirySweeper(Database database, ReadpastConfig config, BrokerMetrics metrics, FinishedJobs finished,
                         FeatureClock clock) {
        this.database = database;
        this.config = config;
        this.metrics = metrics;
        this.finished = finished;
        this.clock = clock;
    }

    void onStart(@Observes StartupEvent event) {
        clock.register(FeatureClock.Task.EXPIRY, this::runOnce);
    }

    /** A job enqueued here expires at {@code expiresAt} (database clock): look then. */
    public void noteExpiry(Instant expiresAt) {
        clock.wakeAt(expiresAt);
    }

    /** Moves every expired PENDING job to the dead letters now; returns how many. */
    public int runOnce() {
        JobStore store = database.start();
        int batch = Math.max(1, config.sweeper().leaseBatch());
        int total = 0;
        List<String> queues;
        do {
            queues = store.jobExpirePending(batch);
            for (String q : queues) {
                metrics.count(BrokerMetrics.Event.DEAD, q, 1);
            }
            total += queues.size();
        } while (!queues.isEmpty() && queues.size() >= batch);
        if (total > 0) {
            LOG.debugf("Expiry sweeper moved %d expired jobs to the dead letters", total);
            finished.finished();
        }
        return total;
    }
}
