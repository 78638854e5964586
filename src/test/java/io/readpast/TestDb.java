package io.readpast;

import io.agroal.api.AgroalDataSource;
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

    public static AgroalDataSource dataSource() {
        String name = io.readpast.store.Database.activeDataSourceNames().iterator().next();
        return AgroalDataSourceUtil.dataSourceIfActive(name).orElseThrow();
    }

    public static Engine engine() {
        String name = io.readpast.store.Database.activeDataSourceNames().iterator().next();
        return "mssql".equals(name) ? Engine.SQLSERVER : Engine.POSTGRESQL;
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
            for (String t : new String[] {"readpast_job", "readpast_job_archive", "readpast_job_dead", "readpast_queue"}) {
                s.executeUpdate("DELETE FROM " + t);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
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
}
