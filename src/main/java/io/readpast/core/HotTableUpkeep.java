package io.readpast.core;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.readpast.config.Engine;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.Database;
import io.readpast.store.JdbcJobStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;

/**
 * Keeps the hot table lean on PostgreSQL (see {@code PostgresDialect.hotTableUpkeep}): once this
 * instance has claimed and acknowledged readpast.upkeep.vacuum-after jobs since its last look,
 * it asks the database how many dead row versions the hot table holds and vacuums it when there
 * are at least as many. It looks at most once a second and touches the database only after that
 * much work, so an idle broker costs nothing here.
 */
@ApplicationScoped
public class HotTableUpkeep {

    private static final Logger LOG = Logger.getLogger(HotTableUpkeep.class);

    private final Database database;
    private final ReadpastConfig config;
    private final Timetable timetable;
    private volatile BackgroundLoop loop;
    /** Runs on the loop's thread only. */
    private long lookedAt;
    private boolean told;

    public HotTableUpkeep(Database database, ReadpastConfig config, Timetable timetable) {
        this.database = database;
        this.config = config;
        this.timetable = timetable;
    }

    void onStart(@Observes StartupEvent event) {
        long after = config.upkeep().vacuumAfter();
        if (after < 0) {
            throw new Database.StartupFailure("readpast.upkeep.vacuum-after (READPAST_UPKEEP_VACUUM_AFTER) must be 0 (off) "
                    + "or a positive number of jobs, got " + after);
        }
        if (after == 0) {
            return;
        }
        loop = new BackgroundLoop("readpast-hot-table-upkeep", timetable, Duration.ofSeconds(1), Duration.ofSeconds(1),
                () -> pass(after));
        loop.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        BackgroundLoop l = loop;
        if (l != null) {
            l.stop();
        }
    }

    /** One look; always "again in a second" (null: the loop's longest sleep). */
    private Instant pass(long after) {
        if (!database.started()) {
            return null;
        }
        if (database.engine() != Engine.POSTGRESQL) {
            loop.stop(); // SQL Server clears deleted rows itself
            return null;
        }
        JdbcJobStore store = database.start();
        long churn = store.churn();
        if (churn - lookedAt < after) {
            return null;
        }
        lookedAt = churn;
        String done = store.hotTableUpkeep(after);
        if (done != null && !told) {
            told = true;
            LOG.infof("Hot-table upkeep: %s. Autovacuum does not keep up with this queue's pace; the broker "
                    + "vacuums the hot table itself after every %d claims and acknowledgements that leave as "
                    + "many dead rows (readpast.upkeep.vacuum-after). Further passes are logged at DEBUG.", done, after);
        } else if (done != null) {
            LOG.debugf("Hot-table upkeep: %s", done);
        }
        return null;
    }
}
