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
    private static final long LOOK_EVERY_MS = 1000;

    private final Database database;
    private final ReadpastConfig config;
    private volatile Thread thread;
    private volatile boolean running;

    public HotTableUpkeep(Database database, ReadpastConfig config) {
        this.database = database;
        this.config = config;
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
        running = true;
        thread = Thread.ofVirtual().name("readpast-hot-table-upkeep").start(() -> loop(after));
    }

    void onStop(@Observes ShutdownEvent event) {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    private void loop(long after) {
        long lookedAt = 0;
        boolean told = false;
        while (running) {
            try {
                Thread.sleep(LOOK_EVERY_MS);
            } catch (InterruptedException e) {
                return;
            }
            if (!database.started()) {
                continue;
            }
            if (database.engine() != Engine.POSTGRESQL) {
                return; // SQL Server clears deleted rows itself
            }
            JdbcJobStore store = database.start();
            long churn = store.churn();
            if (churn - lookedAt < after) {
                continue;
            }
            lookedAt = churn;
            try {
                String done = store.hotTableUpkeep(after);
                if (done != null && !told) {
                    told = true;
                    LOG.infof("Hot-table upkeep: %s. Autovacuum does not keep up with this queue's pace; the broker "
                            + "vacuums the hot table itself after every %d claims and acknowledgements that leave as "
                            + "many dead rows (readpast.upkeep.vacuum-after). Further passes are logged at DEBUG.", done, after);
                } else if (done != null) {
                    LOG.debugf("Hot-table upkeep: %s", done);
                }
            } catch (RuntimeException e) {
                LOG.warnf("Hot-table upkeep skipped a pass: %s", e.getMessage());
            }
        }
    }
}
