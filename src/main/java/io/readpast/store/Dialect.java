package io.readpast.store;

import io.readpast.config.Engine;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Instant;
import java.util.function.BiConsumer;

/**
 * What differs between the engines outside the SQL text: time binding, error codes, and how
 * broker instances tell each other about new work.
 */
public interface Dialect {

    Engine engine();

    /**
     * Opens this engine's channel to the other broker instances: {@code onReceive} gets their
     * announcements (queue, count), {@code onReconnect} runs whenever the channel (re)connects,
     * since announcements may have been missed meanwhile. Null when the engine has none: then the
     * due poll is how other instances' new work is found.
     */
    default InstanceChannel openChannel(DataSource pool, BiConsumer<String, Integer> onReceive,
                                        BiConsumer<String, Instant> onDue, Runnable onReconnect) {
        return null;
    }

    /**
     * Hot-table upkeep, on an autocommit connection: clears the dead row versions that claims
     * and acknowledgements leave behind once the engine counts at least {@code minDead}, when the
     * engine does not do it soon enough by itself. Returns what was done (for the log), or null
     * when nothing was. SQL Server removes deleted rows in the background (ghost cleanup):
     * nothing to do there.
     */
    default String hotTableUpkeep(java.sql.Connection c, long minDead) throws SQLException {
        return null;
    }

    void bindInstant(PreparedStatement ps, int index, Instant value) throws SQLException;

    Instant readInstant(ResultSet rs, int column) throws SQLException;

    /**
     * Checks, before the migrations run, that the database has what the statements need, and
     * logs the settings that change how they behave. Throws {@link io.readpast.config.StartupFailure}
     * with one line that says what to fix.
     */
    default void checkDatabase(java.sql.Connection c) throws SQLException {
    }

    /**
     * The engine's flavor once {@link #checkDatabase} has run (null: the engine itself). A
     * flavor may have its own versions of statement fragments (see {@link StatementCatalog}).
     */
    default String flavor() {
        return null;
    }

    /**
     * True when every statement file is one SQL statement, atomic on its own, so that work of one
     * statement may run in autocommit (one round trip instead of statement plus COMMIT).
     */
    boolean singleStatementAutocommit();

    /** JDBC type used to bind a null string. */
    int nullStringType();

    /** Engine-specific classification; null when the engine has nothing to say. */
    StoreException.Kind classifyEngine(SQLException e);

    /**
     * A failover on the engine's side: no primary to connect to yet, a connection lost, the
     * session on a node that is now a standby, the database not available for a moment. Work that
     * met one and did not commit may be tried again once a new primary serves. Not disk full,
     * connection limits or refused logins: those wait on an operator, not on a promotion.
     */
    default boolean isFailover(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                if (isEngineFailover(s)) {
                    return true;
                }
                String state = s.getSQLState();
                if (state != null && state.startsWith("08")) {
                    return true;
                }
                if (isAcquisitionTimeout(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Agroal could not hand out a connection in time: pool exhausted or database gone. */
    private static boolean isAcquisitionTimeout(SQLException s) {
        String msg = s.getMessage();
        return msg != null && msg.toLowerCase(java.util.Locale.ROOT).contains("acquisition timeout");
    }

    /** The engine's own failover errors (see {@link #isFailover}). */
    boolean isEngineFailover(SQLException e);

    default StoreException.Kind classify(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                StoreException.Kind k = classifyEngine(s);
                if (k != null) {
                    return k;
                }
                String state = s.getSQLState();
                if (s instanceof SQLTransientConnectionException || s instanceof SQLNonTransientConnectionException
                        || (state != null && state.startsWith("08"))) {
                    return StoreException.Kind.UNAVAILABLE;
                }
                if (isAcquisitionTimeout(s)) {
                    return StoreException.Kind.UNAVAILABLE;
                }
            }
        }
        return StoreException.Kind.OTHER;
    }
}
