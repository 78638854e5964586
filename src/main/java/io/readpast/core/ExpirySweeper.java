package io.readpast.core;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.ops.BrokerMetrics;
import io.readpast.store.Database;
import io.readpast.store.JobStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Jobs that must never start after their expiresAt: claims skip them already, and this
 * sweeper moves them to the dead letters (DEAD, "expired", with their webhooks). Runs on every
 * instance (rows are taken skip-locked, so concurrent sweeps are harmless) and sleeps until the
 * earliest expiry it knows of: the database's (one statement per look) and those of jobs
 * enqueued here; at the latest after readpast.sweeper.expiry-interval.
 */
@ApplicationScoped
public class ExpirySweeper {

    private static final Logger LOG = Logger.getLogger(ExpirySweeper.class);

    private final Database database;
    private final ReadpastConfig config;
    private final BrokerMetrics metrics;
    private final FinishedJobs finished;
    private final Timetable timetable;
    private volatile BackgroundLoop loop;

    public ExpirySweeper(Database database, ReadpastConfig config, BrokerMetrics metrics, FinishedJobs finished,
                         Timetable timetable) {
        this.database = database;
        this.config = config;
        this.metrics = metrics;
        this.finished = finished;
        this.timetable = timetable;
    }

    void onStart(@Observes StartupEvent event) {
        Duration longest = DurationConverter.parseDuration(config.sweeper().expiryInterval());
        loop = new BackgroundLoop("readpast-expiry-sweeper", timetable, longest, Duration.ofMillis(20), this::pass);
        loop.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        BackgroundLoop l = loop;
        if (l != null) {
            l.stop();
        }
    }

    /** A job enqueued here expires at {@code expiresAt} (database clock): look then. */
    public void noteExpiry(Instant expiresAt) {
        BackgroundLoop l = loop;
        if (l != null && expiresAt != null) {
            l.wakeAt(expiresAt);
        }
    }

    private Instant pass() {
        if (!database.started()) {
            return Instant.now().plusSeconds(1);
        }
        JobStore store = database.start();
        JobStore.NextTime next = store.jobNextExpiry();
        timetable.observedDbNow(next.dbNow());
        if (next.next() != null && !next.next().isAfter(next.dbNow())) {
            runOnce();
            next = store.jobNextExpiry();
        }
        return next.next();
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
