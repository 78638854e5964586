package io.readpast.core;

import io.readpast.config.ReadpastConfig;
import io.readpast.store.MaintenanceStore;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.List;

/**
 * Jobs that must never start after their expiresAt, and WAITING jobs that waited longer than
 * readpast.dependencies.wait-limit: claims skip them already, and this moves them to the dead
 * letters (DEAD, "expired", with their webhooks) when the {@link TimersTask}
 * finds one due (at once for jobs enqueued here; within readpast.sweeper.timers-interval for
 * others). Safe on every instance: rows are taken skip-locked.
 */
@ApplicationScoped
public class JobExpiry {

    private static final Logger LOG = Logger.getLogger(JobExpiry.class);

    private final MaintenanceStore store;
    private final ReadpastConfig config;
    private final JobOutcomes outcomes;
    private final FinishedJobs finished;

    public JobExpiry(MaintenanceStore store, ReadpastConfig config, JobOutcomes outcomes, FinishedJobs finished) {
        this.store = store;
        this.config = config;
        this.outcomes = outcomes;
        this.finished = finished;
    }

    /** readpast.dependencies.wait-limit in milliseconds, 0 when there is none. */
    static long waitLimitMs(ReadpastConfig config) {
        return config.dependencies().waitLimit().map(d -> Math.max(0, d.toMillis())).orElse(0L);
    }

    /** Moves every expired PENDING or WAITING job to the dead letters now; returns how many. */
    public int runOnce() {
        int batch = Math.max(1, config.sweeper().leaseBatch());
        int total = 0;
        List<String> queues;
        do {
            queues = store.jobExpirePending(batch, waitLimitMs(config));
            for (String q : queues) {
                outcomes.events().count(JobEvents.Event.DEAD, q, 1);
            }
            total += queues.size();
        } while (!queues.isEmpty() && queues.size() >= batch);
        if (total > 0) {
            LOG.debugf("Job expiry moved %d expired jobs to the dead letters", total);
            finished.finished();
        }
        return total;
    }
}
