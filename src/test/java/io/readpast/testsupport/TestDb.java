package io.readpast.testsupport;

import io.quarkus.agroal.runtime.AgroalDataSourceUtil;
import io.readpast.config.Engine;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Direct access to the test database, for set-up and for checks the API cannot make. */
public final class TestDb {

    private TestDb() {
    }

    /**
     * The broker's database. In a {@code @QuarkusTest} that is the broker's own pool; in a
     * {@code @QuarkusIntegrationTest} (the packaged jar or native binary runs apart, no broker in
     * this JVM) a plain JDBC connection to READPAST_TEST_DB_URL, the database the artifact was
     * given.
     */
    public static javax.sql.DataSource dataSource() {
        if (!inProcess()) {
            return External.INSTANCE;
        }
        String name = io.readpast.store.Database.activeDataSourceNames().iterator().next();
        return AgroalDataSourceUtil.dataSourceIfActive(name).orElseThrow();
    }

    public static Engine engine() {
        if (!inProcess()) {
            return External.url().startsWith("jdbc:sqlserver:") ? Engine.SQLSERVER : Engine.POSTGRESQL;
        }
        String name = io.readpast.store.Database.activeDataSourceNames().iterator().next();
        return "mssql".equals(name) ? Engine.SQLSERVER : Engine.POSTGRESQL;
    }

    /**
     * A bean of the broker when it runs in this JVM, else null: tests that also run against the
     * packaged artifact ({@code *IT}) take beans this way, as {@code @Inject} is refused there.
     */
    public static <T> T bean(Class<T> type) {
        return inProcess() ? io.quarkus.arc.Arc.container().instance(type).get() : null;
    }

    /** Whether the broker runs in this JVM (a {@code @QuarkusTest}), not as a separate artifact. */
    public static boolean inProcess() {
        io.quarkus.arc.ArcContainer arc = io.quarkus.arc.Arc.container();
        return arc != null && arc.isRunning();
    }

    /** Connections to READPAST_TEST_DB_URL for integration tests, where the broker runs apart. */
    private static final class External implements javax.sql.DataSource {
        static final External INSTANCE = new External();

        static String url() {
            String url = System.getenv("READPAST_TEST_DB_URL");
            if (url == null || url.isBlank()) {
                throw new IllegalStateException("The integration tests (io.readpast.it) need READPAST_TEST_DB_URL: the "
                        + "packaged broker and the tests must share one database (.ci/run sets it)");
            }
            return url;
        }

        @Override
        public Connection getConnection() throws SQLException {
            String user = System.getenv().getOrDefault("READPAST_TEST_DB_USERNAME", "postgres");
            String password = System.getenv().getOrDefault("READPAST_TEST_DB_PASSWORD", "");
            return java.sql.DriverManager.getConnection(url(), user, password);
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return java.sql.DriverManager.getConnection(url(), user, password);
        }

        @Override
        public java.io.PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(java.io.PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public java.util.logging.Logger getParentLogger() {
            return java.util.logging.Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }

    private static volatile Boolean babelfish;

    /**
     * True when the SQL Server endpoint is Babelfish for PostgreSQL, which speaks T-SQL over
     * TDS and runs every Readpast statement, but parses table hints (UPDLOCK, READPAST, ROWLOCK,
     * ...) and ignores them: a claim there waits for rows another transaction holds instead of
     * skipping them. Tests of that one behaviour skip there (see {@link #skipsLockedRows()}).
     */
    public static boolean babelfish() {
        Boolean b = babelfish;
        if (b == null) {
            b = engine() == Engine.SQLSERVER && version().contains("Babelfish");
            babelfish = b;
        }
        return b;
    }

    /**
     * Whether OPENJSON and JSON_VALUE give string members unescaped, as SQL Server does.
     * Babelfish gives them still escaped ({\"k\":1} for {"k":1}), so JSON text passed inside a
     * JSON batch (payloads of a batch enqueue, results of a batch ack) arrives altered there.
     */
    public static boolean jsonStringsUnescaped() {
        return !babelfish();
    }

    /** Whether a claim skips rows another open transaction holds (READPAST, SKIP LOCKED). */
    public static boolean skipsLockedRows() {
        return !babelfish();
    }

    private static String version() {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@VERSION")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Empties every Readpast table, so each test starts from nothing. */
    public static void clean() {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            // schedules first: the schedule sweeper must find nothing to fire into the emptied job tables
            for (String t : new String[] {"readpast_schedule", "readpast_schedule_fire",
                    "readpast_job", "readpast_job_archive", "readpast_job_dead", "readpast_queue", "readpast_webhook", "readpast_unique_key",
                    "readpast_batch", "readpast_job_dep"}) {
                s.executeUpdate("DELETE FROM " + t);
            }
            if (engine() == Engine.SQLSERVER) {
                // the queues' tally rows (V27, SQL Server only) go with the queues: a rate window's
                // count left from an earlier test would hold a new queue of that name back
                s.executeUpdate("DELETE FROM readpast_queue_tally");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Where the packaged artifact writes its log in an integration test (Quarkus' launcher
     * redirects it there), for checks of what the broker logged; empty in process.
     */
    public static java.util.List<String> artifactLog() {
        java.nio.file.Path log = java.nio.file.Path.of("target", "quarkus.log");
        if (inProcess() || !java.nio.file.Files.exists(log)) {
            return java.util.List.of();
        }
        try {
            return java.nio.file.Files.readAllLines(log, java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The database's clock (what leases and schedules are measured by). */
    public static java.time.Instant dbNow() {
        String sql = engine() == Engine.SQLSERVER ? "SELECT CONVERT(varchar(33), SYSUTCDATETIME(), 126) + 'Z'"
                : "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')";
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            // Babelfish prints style 126 with a space where SQL Server puts the T
            return java.time.Instant.parse(rs.getString(1).replace(' ', 'T'));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A time column as an instant (timestamptz, or datetime2 holding UTC); null when NULL. */
    public static java.time.Instant instant(ResultSet rs, String column) throws SQLException {
        if (engine() == Engine.SQLSERVER) {
            java.time.LocalDateTime t = rs.getObject(column, java.time.LocalDateTime.class);
            return t == null ? null : t.toInstant(java.time.ZoneOffset.UTC);
        }
        java.time.OffsetDateTime t = rs.getObject(column, java.time.OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** An instant as a bind value for this engine's time columns (timestamptz, or datetime2 holding UTC). */
    public static Object time(java.time.Instant t) {
        return engine() == Engine.SQLSERVER
                ? java.time.LocalDateTime.ofInstant(t, java.time.ZoneOffset.UTC)
                : java.time.OffsetDateTime.ofInstant(t, java.time.ZoneOffset.UTC);
    }

    /**
     * Runs one data-changing statement and returns its row count. On SQL Server the statement
     * runs with NOCOUNT OFF: a pooled session may carry NOCOUNT ON from the broker's own
     * batches (Babelfish keeps it across statements), and then no count comes back.
     */
    public static int update(String sql, Object... args) {
        String text = engine() == Engine.SQLSERVER ? "SET NOCOUNT OFF; " + sql : sql;
        try (Connection c = dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(text)) {
            c.setAutoCommit(true);
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs one statement (set-up a test cannot do through the API); returns the update count. */
    public static int exec(String sql, Object... args) {
        return update(sql, args);
    }

    public static long count(String sql, Object... args) {
        try (Connection c = dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            c.setAutoCommit(true);
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every Readpast table, for {@link #snapshot()}. */
    public static final java.util.List<String> TABLES = java.util.List.of("readpast_job", "readpast_job_archive",
            "readpast_job_dead", "readpast_queue", "readpast_schedule", "readpast_schedule_fire", "readpast_webhook",
            "readpast_unique_key");

    /** Row counts and a digest of every row of every Readpast table: equal snapshots mean nothing changed. */
    public static String snapshot() {
        StringBuilder out = new StringBuilder();
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            for (String t : TABLES) {
                int rows = 0;
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + t + " ORDER BY 1, 2")) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        rows++;
                        for (int i = 1; i <= n; i++) {
                            md.update(String.valueOf(rs.getObject(i)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                            md.update((byte) 0);
                        }
                    }
                }
                out.append(t).append('=').append(rows).append(' ');
            }
            return out.append(java.util.HexFormat.of().formatHex(md.digest())).toString();
        } catch (SQLException | java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
