package io.readpast.store.jdbc;

import io.readpast.store.ApiKeyStore;
import io.readpast.store.BatchStore;
import io.readpast.store.Dialect;
import io.readpast.store.JobStore;
import io.readpast.store.MaintenanceStore;
import io.readpast.store.QueueStore;
import io.readpast.store.ScheduleStore;
import io.readpast.store.StatementCatalog;
import io.readpast.store.Stmt;
import io.readpast.store.WebhookStore;

import javax.sql.DataSource;

/**
 * Every store port, on one pool, one dialect and one statement catalog: what
 * {@link io.readpast.store.Database#start()} builds once the database is migrated.
 */
public final class JdbcStores {

    private final SqlRunner sql;
    private final JobStore jobs;
    private final QueueStore queues;
    private final ScheduleStore schedules;
    private final WebhookStore webhooks;
    private final ApiKeyStore apiKeys;
    private final MaintenanceStore maintenance;
    private final BatchStore batches;
    private final Settlement settlement;

    public JdbcStores(DataSource dataSource, Dialect dialect, StatementCatalog catalog, int claimConcurrency) {
        this(dataSource, dialect, catalog, claimConcurrency, java.time.Duration.ZERO);
    }

    /** {@code failoverWait}: readpast.db.failover-wait (see {@link SqlRunner#run}). */
    public JdbcStores(DataSource dataSource, Dialect dialect, StatementCatalog catalog, int claimConcurrency,
                      java.time.Duration failoverWait) {
        this.sql = new SqlRunner(dataSource, dialect, catalog, failoverWait);
        ClaimGate gate = new ClaimGate(claimConcurrency);
        CappedQueues capped = new CappedQueues(sql);
        JobInserts inserts = new JobInserts(sql);
        this.settlement = new Settlement(sql, inserts);
        ClaimPath claims = new ClaimPath(sql, gate, capped, settlement);
        this.jobs = new JdbcJobStore(sql, inserts, claims, settlement);
        this.batches = new JdbcBatchStore(sql, inserts, settlement);
        this.queues = new JdbcQueueStore(sql, capped);
        this.schedules = new JdbcScheduleStore(sql, inserts);
        this.webhooks = new JdbcWebhookStore(sql);
        this.apiKeys = new JdbcApiKeyStore(sql);
        this.maintenance = new JdbcMaintenanceStore(sql, claims, settlement);
    }

    public JobStore jobs() {
        return jobs;
    }

    public QueueStore queues() {
        return queues;
    }

    public ScheduleStore schedules() {
        return schedules;
    }

    public WebhookStore webhooks() {
        return webhooks;
    }

    public ApiKeyStore apiKeys() {
        return apiKeys;
    }

    public MaintenanceStore maintenance() {
        return maintenance;
    }

    public BatchStore batches() {
        return batches;
    }

    /**
     * Who hears of jobs that settling made claimable (released children, callback jobs), after
     * the commit: {@code due} with a count per queue, {@code later} with a due time.
     */
    public void onReleased(java.util.function.BiConsumer<String, Integer> due,
                           java.util.function.BiConsumer<String, java.time.Instant> later) {
        settlement.listen(due, later);
    }

    /** The runner every store uses (tests run single statements through it). */
    public SqlRunner sql() {
        return sql;
    }

    /** How many times a statement has run. */
    public long statementsExecuted(Stmt stmt) {
        return sql.statementsExecuted(stmt);
    }

    /** Transient failures met so far. */
    public long transientFailures() {
        return sql.transientFailures();
    }
}
