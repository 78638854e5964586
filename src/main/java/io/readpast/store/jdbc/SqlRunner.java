package io.readpast.store.jdbc;

import io.readpast.store.Dialect;
import io.readpast.store.JobRow;
import io.readpast.store.Params;
import io.readpast.store.SqlStatement;
import io.readpast.store.StatementCatalog;
import io.readpast.store.Stmt;
import io.readpast.store.StoreException;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the engine's named statements on pooled connections: one short transaction per unit of
 * work (on PostgreSQL a unit of one statement runs in autocommit: one round trip), bound
 * parameters only, transient failures (deadlock victim, lock timeout, serialization) retried
 * with jittered backoff. Every store of this package goes through it.
 */
public final class SqlRunner {

    private static final Logger LOG = Logger.getLogger(SqlRunner.class);
    /** Tries of one unit of work before a transient failure is given up on. */
    static final int MAX_TRIES = 5;

    /** Work done inside one transaction. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    /** Maps the current row of a result set, given its column indexes by lower-case label. */
    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet rs, Map<String, Integer> columns) throws SQLException;
    }

    private final DataSource dataSource;
    private final Dialect dialect;
    private final StatementCatalog catalog;
    private final RowReader rows;
    private final Map<Stmt, AtomicLong> statements = new EnumMap<>(Stmt.class);
    private final AtomicLong transientFailures = new AtomicLong();
    private final long failoverWaitNanos;

    /**
     * {@code failoverWait}: how long work that met a failover before it could commit is tried
     * again (readpast.db.failover-wait); zero gives it up at once.
     */
    public SqlRunner(DataSource dataSource, Dialect dialect, StatementCatalog catalog, java.time.Duration failoverWait) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.catalog = catalog;
        this.failoverWaitNanos = Math.max(0, failoverWait.toNanos());
        this.rows = new RowReader(dialect);
        for (Stmt s : Stmt.values()) {
            statements.put(s, new AtomicLong());
        }
    }

    public Dialect dialect() {
        return dialect;
    }

    public RowReader rows() {
        return rows;
    }

    /** How many times a statement has run (the cost figure for idle long-polls). */
    public long statementsExecuted(Stmt stmt) {
        return statements.get(stmt).get();
    }

    /** Transient failures met so far, retried or not: the lock-rule tests expect none. */
    public long transientFailures() {
        return transientFailures.get();
    }

    /** Work in one transaction. */
    public <T> T tx(SqlWork<T> work) {
        return run(work, false);
    }

    /**
     * Work that is a single statement: on PostgreSQL it runs in autocommit (one round trip, no
     * COMMIT of its own; the statement is atomic by itself). SQL Server batches may hold several
     * statements, so there it is a transaction like {@link #tx}.
     */
    public <T> T oneStatement(SqlWork<T> work) {
        return run(work, dialect.singleStatementAutocommit());
    }

    /**
     * A single statement that is safe to run twice ({@link #oneStatement} otherwise): a claim,
     * whose lease, granted but unanswered, runs out and leaves its job claimable again. A
     * failover it meets is tried again within readpast.db.failover-wait even when the statement
     * may have run; the work must start afresh each time it is run.
     */
    public <T> T repeatableStatement(SqlWork<T> work) {
        return run(work, dialect.singleStatementAutocommit(), true);
    }

    /** Work on a connection of its own, in autocommit when asked, committed otherwise. */
    public <T> T run(SqlWork<T> work, boolean autocommit) {
        return run(work, autocommit, false);
    }

    /**
     * Work on a connection of its own, in autocommit when asked, committed otherwise. A failover
     * met while connecting, or inside the transaction before its commit, is tried again until
     * readpast.db.failover-wait has passed since the first one: nothing of that try can have
     * committed. One met by a statement in autocommit or by the commit itself may have committed,
     * and is answered at once (503), unless the work is repeatable.
     */
    private <T> T run(SqlWork<T> work, boolean autocommit, boolean repeatable) {
        long failoverDeadline = 0;
        for (int attempt = 1; ; attempt++) {
            boolean uncommitted = true; // nothing of this try can have committed
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(autocommit);
                if (autocommit) {
                    uncommitted = false;
                    return work.run(c);
                }
                try {
                    T result = work.run(c);
                    uncommitted = false;
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                if ((uncommitted || repeatable) && failoverWaitNanos > 0 && dialect.isFailover(e)) {
                    long now = System.nanoTime();
                    if (failoverDeadline == 0) {
                        failoverDeadline = now + failoverWaitNanos;
                        LOG.infof("Waiting up to %d ms for the database to fail over: %s", failoverWaitNanos / 1_000_000,
                                e.getMessage());
                    }
                    if (now < failoverDeadline) {
                        pause(Math.min(failoverDeadline - now, ThreadLocalRandom.current().nextLong(50, 151) * 1_000_000));
                        continue;
                    }
                }
                StoreException.Kind kind = dialect.classify(e);
                if (kind == StoreException.Kind.TRANSIENT) {
                    transientFailures.incrementAndGet();
                    LOG.debugf("Transient failure (try %d): %s", attempt, e.getMessage());
                    if (attempt < MAX_TRIES) {
                        sleepBackoff(attempt);
                        continue;
                    }
                    LOG.warnf("Giving up after %d transient failures: %s", attempt, e.getMessage());
                }
                throw new StoreException(kind, e.getMessage(), e);
            }
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool will discard it
        }
    }

    private static void sleepBackoff(int attempt) {
        long cap = Math.min(200, 10L << attempt);
        pause(ThreadLocalRandom.current().nextLong(1, cap + 1) * 1_000_000);
    }

    private static void pause(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new StoreException(StoreException.Kind.UNAVAILABLE, "interrupted", ie);
        }
    }

    /** A statement whose rows are jobs. */
    public List<JobRow> queryJobs(Connection c, Stmt stmt, Params params) throws SQLException {
        return query(c, stmt, params, rows::job);
    }

    /** A statement run for its effect; true when it returned a row. */
    public boolean execute(Connection c, Stmt stmt, Params params) throws SQLException {
        return !query(c, stmt, params, (rs, cols) -> Boolean.TRUE).isEmpty();
    }

    /**
     * Runs a statement and maps its first result set. With SQL Server batches, further results
     * are stepped through too, because errors can surface only there.
     */
    public <T> List<T> query(Connection c, Stmt stmt, Params params, RowMapper<T> mapper) throws SQLException {
        SqlStatement s = catalog.get(stmt);
        statements.get(stmt).incrementAndGet();
        try (PreparedStatement ps = c.prepareStatement(s.jdbcSql())) {
            bind(ps, s, params);
            List<T> out = new ArrayList<>();
            boolean haveResultSet = ps.execute();
            boolean read = false;
            int toSkip = s.leadingResults(); // a preamble's results come first
            while (true) {
                if (haveResultSet) {
                    try (ResultSet rs = ps.getResultSet()) {
                        if (toSkip > 0) {
                            toSkip--;
                        } else if (!read) {
                            Map<String, Integer> cols = columns(rs.getMetaData());
                            while (rs.next()) {
                                out.add(mapper.map(rs, cols));
                            }
                            read = true;
                        }
                    }
                } else if (ps.getUpdateCount() == -1) {
                    break;
                }
                haveResultSet = ps.getMoreResults();
            }
            return out;
        }
    }

    private void bind(PreparedStatement ps, SqlStatement s, Params params) throws SQLException {
        List<String> order = s.parameterOrder();
        for (int i = 0; i < order.size(); i++) {
            String name = order.get(i);
            Params.Value v = params.get(name);
            if (v == null) {
                throw new IllegalArgumentException("Statement " + s.name() + " needs parameter '" + name + "'");
            }
            int index = i + 1;
            Object value = v.value();
            if (v.sqlType() == Params.INSTANT) {
                dialect.bindInstant(ps, index, (Instant) value);
            } else if (value == null) {
                ps.setNull(index, v.sqlType() == Types.NVARCHAR ? dialect.nullStringType() : v.sqlType());
            } else if (value instanceof String str) {
                ps.setString(index, str);
            } else if (value instanceof Integer n) {
                ps.setInt(index, n);
            } else if (value instanceof Long n) {
                ps.setLong(index, n);
            } else if (value instanceof Boolean b) {
                ps.setBoolean(index, b);
            } else {
                throw new IllegalArgumentException("Unsupported parameter type " + value.getClass());
            }
        }
    }

    private static Map<String, Integer> columns(ResultSetMetaData md) throws SQLException {
        Map<String, Integer> cols = new HashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            cols.putIfAbsent(md.getColumnLabel(i).toLowerCase(Locale.ROOT), i);
        }
        return cols;
    }

    /** The first row, if any. */
    public static <T> Optional<T> single(List<T> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }
}
