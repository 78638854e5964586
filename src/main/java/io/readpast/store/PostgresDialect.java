package io.readpast.store;

import io.readpast.config.Engine;
import org.eclipse.microprofile.config.ConfigProvider;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.function.BiConsumer;

/** PostgreSQL: timestamptz columns, SQLSTATE error classes, LISTEN/NOTIFY between instances. */
public final class PostgresDialect implements Dialect {

    @Override
    public Engine engine() {
        return Engine.POSTGRESQL;
    }

    /** LISTEN/NOTIFY, on a connection of its own outside the pool (same URL and credentials). */
    @Override
    public InstanceChannel openChannel(DataSource pool, BiConsumer<String, Integer> onReceive,
                                       BiConsumer<String, Instant> onDue, Runnable onReconnect) {
        var config = ConfigProvider.getConfig();
        String prefix = "quarkus.datasource." + Engine.POSTGRESQL.datasourceName() + ".";
        return new PgNotifications(pool,
                config.getValue(prefix + "jdbc.url", String.class),
                config.getOptionalValue(prefix + "username", String.class).orElse(null),
                config.getOptionalValue(prefix + "password", String.class).orElse(null),
                onReceive, onDue, onReconnect);
    }

    /** Advisory lock key of the hot-table upkeep: one instance at a time vacuums. */
    static final long UPKEEP_LOCK = 0x52504B5550L; // "RPKUP"

    /**
     * Each claim leaves the job's old row version and its claim-index entry behind, each
     * acknowledgement the deleted row, and until VACUUM removes them every claim walks the dead
     * index entries at the head of its queue, so a claim costs more with every job done since
     * the last VACUUM (measured: 3.9 to 26 PostgreSQL CPU-s per 50,000 jobs over ten rounds with
     * autovacuum off). Autovacuum's defaults (a look a minute, 20% of the table dead) lag far
     * behind a queue doing thousands of jobs a second, so the broker vacuums the hot table
     * itself: under a try-advisory-lock (one instance at a time; the others go on), only when the
     * statistics count at least {@code minDead} dead row versions, so nothing happens when
     * autovacuum keeps up. VACUUM takes no lock that blocks claims, inserts or deletes: the one
     * that would, truncating the table's empty tail (ACCESS EXCLUSIVE), is off for this table
     * (V29, {@code vacuum_truncate = false}).
     */
    @Override
    public String hotTableUpkeep(java.sql.Connection c, long minDead) throws SQLException {
        try (PreparedStatement lock = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            lock.setLong(1, UPKEEP_LOCK);
            try (ResultSet rs = lock.executeQuery()) {
                if (!rs.next() || !rs.getBoolean(1)) {
                    return null;
                }
            }
        }
        try {
            long dead;
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = to_regclass('readpast_job')")) {
                try (ResultSet rs = ps.executeQuery()) {
                    dead = rs.next() ? rs.getLong(1) : 0;
                }
            }
            if (dead < minDead) {
                return null;
            }
            long t0 = System.nanoTime();
            try (java.sql.Statement vacuum = c.createStatement()) {
                vacuum.execute("VACUUM readpast_job");
            }
            return "vacuumed readpast_job (" + dead + " dead row versions) in "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms";
        } finally {
            try (PreparedStatement unlock = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                unlock.setLong(1, UPKEEP_LOCK);
                unlock.execute();
            }
        }
    }

    @Override
    public void bindInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(index, OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
        }
    }

    @Override
    public Instant readInstant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    @Override
    public boolean singleStatementAutocommit() {
        return true;  // one statement per file
    }

    @Override
    public int nullStringType() {
        return Types.VARCHAR;
    }

    @Override
    public boolean isEngineFailover(SQLException e) {
        String state = e.getSQLState();
        // admin or crash shutdown, the server starting up, a read-only (standby) transaction
        return "57P01".equals(state) || "57P02".equals(state) || "57P03".equals(state) || "25006".equals(state);
    }

    @Override
    public StoreException.Kind classifyEngine(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return null;
        }
        if (state.startsWith("53") || state.startsWith("08")) {
            // insufficient resources: disk full (53100), out of memory (53200), too many
            // connections (53300), a configured limit (53400); any connection exception
            return StoreException.Kind.UNAVAILABLE;
        }
        return switch (state) {
            // serialization failure, deadlock, a lock not granted in lock_timeout
            case "40001", "40P01", "55P03" -> StoreException.Kind.TRANSIENT;
            case "23505" -> StoreException.Kind.DUPLICATE_KEY;
            // admin/crash shutdown, cannot connect now, a read-only standby or transaction,
            // connections not allowed (ALLOW_CONNECTIONS false), authentication failed or not
            // allowed (a password rotated, a login disabled), no such database
            case "57P01", "57P02", "57P03", "25006", "55000", "28P01", "28000", "3D000" -> StoreException.Kind.UNAVAILABLE;
            // insufficient privilege (a revoked grant)
            case "42501" -> StoreException.Kind.REFUSED;
            default -> null;
        };
    }
}
