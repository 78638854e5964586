package io.readpast.core;

import io.readpast.config.Engine;
import io.readpast.config.ReadpastConfig;
import io.readpast.store.Database;
import io.readpast.store.MaintenanceStore;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;

/**
 * Keeps the hot table lean on PostgreSQL (see {@code PostgresDialect.hotTableUpkeep}): once this
 * instance has claimed and acknowledged readpast.upkeep.vacuum-after jobs since its last look,
 * it asks the database how many dead row versions the hot table holds and vacuums it when there
 * are at least as many. It looks at most once a second and touches the database only after that
 * much work, so an idle broker costs nothing here. Safe on every instance: an instance that
 * finds another one vacuuming goes on (an advisory lock). Off on SQL Server, which clears
 * deleted rows itself, and with readpast.upkeep.vacuum-after 0.
 */
@ApplicationScoped
public class HotTableVacuumTask implements BackgroundTask {

    private static final Logger LOG = Logger.getLogger(HotTableVacuumTask.class);

    private final MaintenanceStore store;
    private final ReadpastConfig config;
    private final Database database;
    /** Run on the task's thread only. */
    private long lookedAt;
    private boolean told;

    public HotTableVacuumTask(MaintenanceStore store, ReadpastConfig config, Database database) {
        this.store = store;
        this.config = config;
        this.database = database;
    }

    @Override
    public String name() {
        return "readpast-hot-table-vacuum";
    }

    @Override
    public boolean enabled() {
        return config.upkeep().vacuumAfter() > 0 && database.engine() == Engine.POSTGRESQL;
    }

    @Override
    public Duration longest() {
        return Duration.ofSeconds(1);
    }

    @Override
    public Duration minGap() {
        return Duration.ofSeconds(1);
    }

    @Override
    public Instant pass() {
        long after = config.upkeep().vacuumAfter();
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
