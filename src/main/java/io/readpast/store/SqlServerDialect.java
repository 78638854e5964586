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
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

import org.jboss.logging.Logger;

/** SQL Server: datetime2 columns holding UTC, error numbers from SQLException.getErrorCode(). */
public final class SqlServerDialect implements Dialect {

    private static final Logger LOG = Logger.getLogger(SqlServerDialect.class);

    /** OPENJSON, which the statements use for JSON arrays, needs compatibility level 130. */
    static final int MIN_COMPATIBILITY_LEVEL = 130;
    /** STRING_AGG (the error history, ack-and-claim's answer) needs SQL Server 2017, major version 14. */
    static final int MIN_MAJOR_VERSION = 14;

    /**
     * Babelfish for PostgreSQL speaks T-SQL over TDS but lacks a few documented forms (NEXT
     * VALUE FOR in procedural statements and with OVER); its fragments stand in for those.
     */
    public static final String BABELFISH = "babelfish";

    private volatile String flavor;

    @Override
    public String flavor() {
        return flavor;
    }

    @Override
    public Engine engine() {
        return Engine.SQLSERVER;
    }

    /** How instants travel to and from datetime2(6) columns holding UTC: ISO 8601, microseconds. */
    static final DateTimeFormatter WIRE = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS");

    /**
     * Binds an instant as its UTC wall-clock time in ISO 8601 text, to the microsecond the
     * columns keep (datetime2(6)): the server converts the text (the parameter side, never the
     * column, so seeks stay seeks), and nothing goes through the JVM's time zone (mssql-jdbc has
     * routed java.time values through java.sql.Timestamp in the default zone, which shifts
     * wall-clock times in a daylight-saving gap). Nulls are typed the same way, so the
     * parameter's type never changes between executions.
     */
    @Override
    public void bindInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.NVARCHAR);
        } else {
            ps.setString(index, wire(value));
        }
    }

    static String wire(Instant value) {
        return WIRE.format(LocalDateTime.ofInstant(value.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC));
    }

    /** Reads a datetime2 column as text, which the driver renders without any time zone. */
    @Override
    public Instant readInstant(ResultSet rs, int column) throws SQLException {
        String t = rs.getString(column);
        return t == null ? null : parseWire(t);
    }

    /** A datetime2 value as the driver renders it ({@code 2025-03-30 01:30:00.1234560}), as UTC. */
    static Instant parseWire(String text) {
        return LocalDateTime.parse(text.strip().replace(' ', 'T'), DateTimeFormatter.ISO_LOCAL_DATE_TIME)
                .toInstant(ZoneOffset.UTC);
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
     * Refuses SQL Server before 2017 (no STRING_AGG; review 2's L1) and a database whose
     * compatibility level is below 130 (OPENJSON is missing there), and
     * logs the level and whether READ_COMMITTED_SNAPSHOT is on. The level alone decides on SQL
     * Server; an engine that reports a lower level but has OPENJSON (Babelfish reports its own
     * numbers) is let through, with the level in the log line.
     */
    @Override
    public void checkDatabase(Connection c) throws SQLException {
        int level;
        boolean rcsi;
        String version;
        int edition;
        String schema;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT d.compatibility_level, d.is_read_committed_snapshot_on, "
                     + "CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)), "
                     + "CAST(SERVERPROPERTY('EngineEdition') AS int), SCHEMA_NAME() "
                     + "FROM sys.databases AS d WHERE d.name = DB_NAME()")) {
            if (!rs.next()) {
                throw new io.readpast.config.StartupFailure("SQL Server: the current database is not in sys.databases");
            }
            level = rs.getInt(1);
            rcsi = rs.getBoolean(2);
            version = rs.getString(3);
            edition = rs.getInt(4);
            schema = rs.getString(5);
        }
        flavor = isBabelfish(c) ? BABELFISH : null;
        String tooOld = flavor == null ? versionRefusal(version, edition) : null;
        if (tooOld != null) {
            throw new io.readpast.config.StartupFailure(tooOld);
        }
        String otherSchema = schemaRefusal(schema);
        if (otherSchema != null) {
            throw new io.readpast.config.StartupFailure(otherSchema);
        }
        if (level < MIN_COMPATIBILITY_LEVEL && !hasOpenJson(c)) {
            throw new io.readpast.config.StartupFailure("SQL Server database compatibility level is " + level
                    + "; Readpast needs " + MIN_COMPATIBILITY_LEVEL + " or higher (OPENJSON). "
                    + "Run: ALTER DATABASE CURRENT SET COMPATIBILITY_LEVEL = " + MIN_COMPATIBILITY_LEVEL);
        }
        LOG.infof("SQL Server %s%s: compatibility level %d, READ_COMMITTED_SNAPSHOT %s%s", version,
                flavor == null ? "" : " (" + flavor + ")", level,
                rcsi ? "ON" : "OFF",
                rcsi ? " (queue reads take real locks with READCOMMITTEDLOCK, as they must under RCSI)" : "");
    }

    /**
     * Why this SQL Server is too old for the statements, or null: a boxed product before 2017
     * (major version 14). Azure SQL Database and Managed Instance (engine editions 5 and 8)
     * report major version 12 and always run the current engine, so they pass.
     */
    static String versionRefusal(String productVersion, int engineEdition) {
        if (engineEdition == 5 || engineEdition == 8 || productVersion == null) {
            return null;
        }
        int major;
        try {
            major = Integer.parseInt(productVersion.strip().split("\\.")[0]);
        } catch (NumberFormatException e) {
            return null;
        }
        if (major >= MIN_MAJOR_VERSION) {
            return null;
        }
        return "SQL Server " + productVersion + " is too old: Readpast needs SQL Server 2017 (14.x) or later "
                + "(STRING_AGG), or Azure SQL.";
    }

    /**
     * Why the login's default schema will not do, or null: Readpast's tables, procedures and
     * functions are created unqualified, so in the login's default schema, but a scalar function
     * is always called with its schema in T-SQL (the SQL enqueue calls dbo.readpast_text_units),
     * and procedures resolve the names they use in their own schema: everything must be in dbo
     * (review round 2, L3).
     */
    static String schemaRefusal(String defaultSchema) {
        if (defaultSchema == null || defaultSchema.equalsIgnoreCase("dbo")) {
            return null;
        }
        return "SQL Server: the login's default schema is " + defaultSchema + "; Readpast keeps its tables, "
                + "procedures and functions in dbo. Run: ALTER USER [<the login's database user>] WITH "
                + "DEFAULT_SCHEMA = dbo (or connect as a user whose default schema is dbo)";
    }

    private static boolean isBabelfish(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CAST(SERVERPROPERTY('babelfish') AS nvarchar(20))")) {
            return rs.next() && rs.getString(1) != null;
        }
    }

    private static boolean hasOpenJson(Connection c) {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM OPENJSON(N'[1]')")) {
            return rs.next();
        } catch (SQLException e) {
            return false;
        }
    }

    /** The error number Babelfish gives a PostgreSQL error that has no SQL Server one. */
    static final int BABELFISH_UNMAPPED = 33557097;

    @Override
    public boolean isEngineFailover(SQLException e) {
        return switch (e.getErrorCode()) {
            // the database read-only (a secondary), an availability-group replica not accepting
            // connections or in resolving state, not available (Azure SQL moving it), being
            // recovered or shutting down
            case 3906, 976, 978, 983, 40613, 922, 942 -> true;
            default -> false;
        };
    }

    @Override
    public StoreException.Kind classifyEngine(SQLException e) {
        if ("40001".equals(e.getSQLState())) {
            return StoreException.Kind.TRANSIENT;                     // serialization failure / deadlock
        }
        if (e.getErrorCode() == BABELFISH_UNMAPPED && e.getMessage() != null
                && e.getMessage().contains("due to lock timeout")) {
            // Babelfish's lock timeout (PostgreSQL's 55P03), which it reports under its code for
            // errors without a SQL Server number: SQL Server's 1222
            return StoreException.Kind.TRANSIENT;
        }
        return switch (e.getErrorCode()) {
            // deadlock victim, snapshot update conflict, out of lock resources, lock request
            // timed out (the connection's lockTimeout; XACT_ABORT rolled the transaction back),
            // and job_group_lock's own timeout (51222) and deadlock (51205) outcomes
            case 1205, 3960, 1204, 1222, 51205, 51222 -> StoreException.Kind.TRANSIENT;
            // Azure SQL: the service hit an error processing the request: try again at once
            case 40197 -> StoreException.Kind.TRANSIENT;
            // Azure SQL: busy, resource limits reached, not enough resources. Microsoft asks to
            // come back after about 10 seconds, not within milliseconds: 503 with Retry-After
            case 40501, 10928, 10929, 49918, 49919, 49920 -> StoreException.Kind.UNAVAILABLE;
            case 2601, 2627 -> StoreException.Kind.DUPLICATE_KEY;     // unique index / constraint
            // cannot open the database; not available / being recovered / shutting down; login
            // failed (also what a failover answers for a moment); a filegroup or the log full;
            // the database read-only; an availability-group replica not accepting this
            case 4060, 904, 921, 922, 942, 6005, 40613, 18456, 1105, 9002, 3906, 976, 983, 978 ->
                    StoreException.Kind.UNAVAILABLE;
            // permission denied on an object, or on a database (a revoked grant)
            case 229, 230, 262, 916 -> StoreException.Kind.REFUSED;
            default -> null;
        };
    }
}
