package io.readpast.faults;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fault tests' database: READPAST_FAULTS_DB_URL (default
 * jdbc:postgresql://127.0.0.1:5432/readpast_faults), created if missing. The brokers under test
 * run their migrations on it; the tests read and clean it directly over JDBC.
 */
final class FaultDb {

    static final String URL = env("READPAST_FAULTS_DB_URL", "jdbc:postgresql://127.0.0.1:5432/readpast_faults");
    static final String USER = env("READPAST_FAULTS_DB_USERNAME", "postgres");
    static final String PASSWORD = env("READPAST_FAULTS_DB_PASSWORD", "");

    private static final Pattern PG_URL = Pattern.compile("^(jdbc:postgresql://[^/]+/)([^?;]+)(.*)$");

    private FaultDb() {
    }

    static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v.strip();
    }

    static boolean isPostgres() {
        return URL.startsWith("jdbc:postgresql:");
    }

    /** Creates the database when it does not exist yet (PostgreSQL only). */
    static void ensureDatabase() {
        Matcher m = PG_URL.matcher(URL);
        if (!m.matches()) {
            throw new IllegalStateException("The fault tests need a PostgreSQL URL, got " + URL);
        }
        String name = m.group(2);
        if (!name.matches("[A-Za-z0-9_]+")) {
            throw new IllegalStateException("Unexpected database name '" + name + "' in " + URL);
        }
        try (Connection c = DriverManager.getConnection(m.group(1) + "postgres" + m.group(3), props());
             PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            ps.setString(1, name);
            boolean exists;
            try (ResultSet rs = ps.executeQuery()) {
                exists = rs.next();
            }
            if (!exists) {
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("CREATE DATABASE " + name);
                } catch (SQLException e) {
                    if (!"42P04".equals(e.getSQLState())) { // created meanwhile by someone else
                        throw e;
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create or reach the fault-test database " + URL, e);
        }
    }

    private static Properties props() {
        Properties p = new Properties();
        p.setProperty("user", USER);
        if (!PASSWORD.isEmpty()) {
            p.setProperty("password", PASSWORD);
        }
        p.setProperty("connectTimeout", "5");
        p.setProperty("socketTimeout", "60");
        return p;
    }

    static Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(URL, props());
        c.setAutoCommit(true);
        return c;
    }

    static boolean schemaExists() {
        return count("SELECT count(*) FROM information_schema.tables WHERE table_name = 'readpast_job'") > 0;
    }

    /** Empties every Readpast table, so each test starts from nothing. */
    static void clean() {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String t : new String[] {"readpast_job", "readpast_job_archive", "readpast_job_dead", "readpast_queue"}) {
                s.executeUpdate("DELETE FROM " + t);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static long count(String sql, Object... args) {
        try (Connection c = connect()) {
            return count(c, sql, args);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    static long count(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Every row of a query, each as an array of its column values. */
    static List<Object[]> rows(String sql, Object... args) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            List<Object[]> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    Object[] row = new Object[n];
                    for (int i = 0; i < n; i++) {
                        row[i] = rs.getObject(i + 1);
                    }
                    out.add(row);
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
    }
}
