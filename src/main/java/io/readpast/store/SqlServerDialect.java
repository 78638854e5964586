package io.readpast.store;

import io.readpast.config.Engine;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

import org.jboss.logging.Logger;

/** SQL Server: datetime2 columns holding UTC, error numbers from SQLException.getErrorCode(). */
public final class SqlServerDialect implements Dialect {

    private static final Logger LOG = Logger.getLogger(SqlServerDialect.class);

    /** OPENJSON, which the statements use for JSON arrays, needs compatibility level 130. */
    static final int MIN_COMPATIBILITY_LEVEL = 130;

    @Override
    public Engine engine() {
        return Engine.SQLSERVER;
    }

    @Override
    public void bindInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.TIMESTAMP);
        } else {
            ps.setObject(index, LocalDateTime.ofInstant(value, ZoneOffset.UTC), Types.TIMESTAMP);
        }
    }

    @Override
    public Instant readInstant(ResultSet rs, int column) throws SQLException {
        LocalDateTime t = rs.getObject(column, LocalDateTime.class);
        return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }

    @Override
    public boolean singleStatementAutocommit() {
        return false;  // T-SQL batches of several statements need a transaction around them
    }

    @Override
    public int nullStringType() {
        return Types.NVARCHAR;
    }

    /**
     * Refuses a database whose compatibility level is below 130 (OPENJSON is missing there), and
     * logs the level and whether READ_COMMITTED_SNAPSHOT is on. The level alone decides on SQL
     * Server; an engine that reports a lower level but has OPENJSON (Babelfish reports its own
     * numbers) is let through, with the level in the log line.
     */
    @Override
    public void checkDatabase(Connection c) throws SQLException {
        int level;
        boolean rcsi;
        String version;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT d.compatibility_level, d.is_read_committed_snapshot_on, "
                     + "CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) "
                     + "FROM sys.databases AS d WHERE d.name = DB_NAME()")) {
            if (!rs.next()) {
                throw new Database.StartupFailure("SQL Server: the current database is not in sys.databases");
            }
            level = rs.getInt(1);
            rcsi = rs.getBoolean(2);
            version = rs.getString(3);
        }
        if (level < MIN_COMPATIBILITY_LEVEL && !hasOpenJson(c)) {
            throw new Database.StartupFailure("SQL Server database compatibility level is " + level
                    + "; Readpast needs " + MIN_COMPATIBILITY_LEVEL + " or higher (OPENJSON). "
                    + "Run: ALTER DATABASE CURRENT SET COMPATIBILITY_LEVEL = " + MIN_COMPATIBILITY_LEVEL);
        }
        LOG.infof("SQL Server %s: compatibility level %d, READ_COMMITTED_SNAPSHOT %s%s", version, level,
                rcsi ? "ON" : "OFF",
                rcsi ? " (queue reads take real locks with READCOMMITTEDLOCK, as they must under RCSI)" : "");
    }

    private static boolean hasOpenJson(Connection c) {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM OPENJSON(N'[1]')")) {
            return rs.next();
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public StoreException.Kind classifyEngine(SQLException e) {
        if ("40001".equals(e.getSQLState())) {
            return StoreException.Kind.TRANSIENT;                     // serialization failure / deadlock
        }
        return switch (e.getErrorCode()) {
            // deadlock victim, snapshot update conflict, out of lock resources
            case 1205, 3960, 1204 -> StoreException.Kind.TRANSIENT;
            // Azure SQL: service busy, service error, not enough resources, resource limits
            case 40501, 40197, 49918, 49919, 49920, 10928, 10929 -> StoreException.Kind.TRANSIENT;
            case 2601, 2627 -> StoreException.Kind.DUPLICATE_KEY;     // unique index / constraint
            // cannot open the database; not available / being recovered / shutting down
            case 4060, 904, 921, 922, 942, 6005, 40613 -> StoreException.Kind.UNAVAILABLE;
            default -> null;
        };
    }
}
