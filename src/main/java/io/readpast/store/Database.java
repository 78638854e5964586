package io.readpast.store;

import io.agroal.api.AgroalDataSource;
import io.quarkus.agroal.runtime.AgroalDataSourceUtil;
import io.quarkus.arc.Arc;
import io.quarkus.flyway.FlywayDataSource;
import io.readpast.config.Engine;
import io.readpast.config.ReadpastConfig;
import io.readpast.config.StartupChecks;
import io.readpast.config.StartupFailure;
import io.readpast.store.jdbc.JdbcStores;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.flywaydb.core.Flyway;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

/**
 * Picks the engine from the active named datasource, checks that the database answers, runs
 * that engine's migrations and loads its statements. Any failure is a {@link StartupFailure}
 * with one line that says what to fix.
 */
@ApplicationScoped
public class Database {

    private final ReadpastConfig config;
    private volatile JdbcStores store;
    private volatile Engine engine;
    private volatile AgroalDataSource dataSource;
    private volatile Dialect dialect;

    public Database(ReadpastConfig config) {
        this.config = config;
    }

    /** Connects, migrates and loads statements. Idempotent. */
    public synchronized JdbcStores start() {
        if (store != null) {
            return store;
        }
        StartupChecks.check(config);
        String url = config.db().url().orElse("");
        if (url.isBlank() && config.db().devServices().isPresent()) {
            // the test suite on a container Quarkus Dev Services started: its URL is the datasource's
            url = org.eclipse.microprofile.config.ConfigProvider.getConfig().getOptionalValue("quarkus.datasource."
                    + config.db().devServices().get().strip() + ".jdbc.url", String.class).orElse("");
        }
        if (url.isBlank()) {
            if (!config.embedded().enabled()) {
                throw new StartupFailure("READPAST_DB_URL is not set: give a JDBC URL, "
                        + "jdbc:postgresql://host:5432/db or jdbc:sqlserver://host:1433;databaseName=db");
            }
            url = startEmbedded();
        }
        Engine engine = Engine.fromJdbcUrl(url);
        if (engine == null) {
            throw new StartupFailure("READPAST_DB_URL names no supported engine: it must start with "
                    + "jdbc:postgresql: or jdbc:sqlserver: (got '" + redact(url) + "')");
        }
        Set<String> active = activeDataSourceNames();
        if (!active.equals(Set.of(engine.datasourceName()))) {
            throw new StartupFailure("Exactly one database must be configured, the one READPAST_DB_URL names ("
                    + engine.datasourceName() + "); active datasources: " + active);
        }
        AgroalDataSource ds = AgroalDataSourceUtil.dataSourceIfActive(engine.datasourceName())
                .orElseThrow(() -> new StartupFailure("Datasource " + engine.datasourceName() + " is not active"));
        try (Connection c = ds.getConnection()) {
            if (!c.isValid(5)) {
                throw new SQLException("connection is not valid");
            }
        } catch (SQLException e) {
            throw new StartupFailure("Cannot reach the database at " + redact(url) + ": " + rootMessage(e));
        }
        Dialect dialect = engine == Engine.SQLSERVER ? new SqlServerDialect() : new PostgresDialect();
        try (Connection c = ds.getConnection()) {
            dialect.checkDatabase(c);
        } catch (SQLException e) {
            throw new StartupFailure("Cannot check the database at " + redact(url) + ": " + rootMessage(e));
        }
        try {
            flyway(engine).migrate();
        } catch (RuntimeException e) {
            throw new StartupFailure("Database migration failed on " + redact(url) + ": " + rootMessage(e));
        }
        StatementCatalog catalog;
        try {
            catalog = StatementCatalog.load(engine, dialect.flavor());
        } catch (IllegalStateException e) {
            throw new StartupFailure(e.getMessage());
        }
        this.engine = engine;
        this.dataSource = ds;
        this.dialect = dialect;
        store = new JdbcStores(ds, dialect, catalog, config.db().claimConcurrency(), config.db().failoverWait());
        return store;
    }

    /** The engine in use (after {@link #start()}). */
    public Engine engine() {
        return engine;
    }

    /** What differs for the engine in use (after {@link #start()}). */
    public Dialect dialect() {
        return dialect;
    }

    /** The active pool (after {@link #start()}). */
    public AgroalDataSource dataSource() {
        return dataSource;
    }

    /** The Flyway instance of the engine in use (after {@link #start()}): readiness asks it. */
    public Flyway flyway() {
        if (engine == null) {
            throw new IllegalStateException("the database has not started");
        }
        return flyway(engine);
    }

    private static Flyway flyway(Engine engine) {
        return Arc.container()
                .select(Flyway.class, FlywayDataSource.FlywayDataSourceLiteral.of(engine.datasourceName()))
                .get();
    }

    /** Names of the named datasources (one per engine) that have a JDBC URL and so are active. */
    public static Set<String> activeDataSourceNames() {
        Set<String> names = new java.util.TreeSet<>();
        for (Engine e : Engine.values()) {
            var handle = AgroalDataSourceUtil.dataSourceInstance(e.datasourceName()).getHandle();
            if (handle.getBean() != null && handle.getBean().isActive()) {
                names.add(e.datasourceName());
            }
        }
        return names;
    }

    private String startEmbedded() {
        java.nio.file.Path dir = java.nio.file.Path.of(config.embedded().dataDir());
        try {
            io.readpast.config.EmbeddedDatabase.start(dir, config.embedded().clean(), config.embedded().durable());
        } catch (io.readpast.config.EmbeddedDatabase.DataDirectoryInUse e) {
            throw new StartupFailure("The embedded PostgreSQL cannot start: " + e.getMessage());
        } catch (java.io.IOException | RuntimeException e) {
            throw new StartupFailure("READPAST_DB_URL is not set and the embedded PostgreSQL did not start ("
                    + rootMessage(e) + "); set READPAST_DB_URL to your database");
        }
        org.jboss.logging.Logger.getLogger(Database.class).warnf("No READPAST_DB_URL: using an embedded PostgreSQL with its "
                + "data in %s. This is for trying Readpast out; set READPAST_DB_URL for real use.", dir.toAbsolutePath());
        return io.readpast.config.EmbeddedDatabase.jdbcUrl();
    }

    // The ports, for injection. Normal-scoped: a bean that injects one is not tied to the
    // database until it first calls it (the store starts in Startup, before anything calls).

    @Produces
    @ApplicationScoped
    JobStore jobStore() {
        return start().jobs();
    }

    @Produces
    @ApplicationScoped
    QueueStore queueStore() {
        return start().queues();
    }

    @Produces
    @ApplicationScoped
    ScheduleStore scheduleStore() {
        return start().schedules();
    }

    @Produces
    @ApplicationScoped
    WebhookStore webhookStore() {
        return start().webhooks();
    }

    @Produces
    @ApplicationScoped
    ApiKeyStore apiKeyStore() {
        return start().apiKeys();
    }

    @Produces
    @ApplicationScoped
    BatchStore batchStore() {
        return start().batches();
    }

    @Produces
    @ApplicationScoped
    MaintenanceStore maintenanceStore() {
        return start().maintenance();
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage();
        return (m == null ? root.getClass().getSimpleName() : m).replaceAll("\\s+", " ").strip();
    }

    /** Drops anything that looks like a password from a JDBC URL before it is logged. */
    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^;&]*", "$1***");
    }
}
