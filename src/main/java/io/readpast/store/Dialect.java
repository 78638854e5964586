package io.readpast.store;

import io.readpast.config.Engine;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Instant;

/** What differs between the engines outside the SQL text: time binding and error codes. */
public interface Dialect {

    Engine engine();

    void bindInstant(PreparedStatement ps, int index, Instant value) throws SQLException;

    Instant readInstant(ResultSet rs, int column) throws SQLException;

    /**
     * True when every statement file is one SQL statement, atomic on its own, so that work of one
     * statement may run in autocommit (one round trip instead of statement plus COMMIT).
     */
    boolean singleStatementAutocommit();

    /** JDBC type used to bind a null string. */
    int nullStringType();

    /** Engine-specific classification; null when the engine has nothing to say. */
    StoreException.Kind classifyEngine(SQLException e);

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
                String msg = s.getMessage();
                if (msg != null && msg.toLowerCase(java.util.Locale.ROOT).contains("acquisition timeout")) {
                    // Agroal could not hand out a connection in time: pool exhausted or database gone.
                    return StoreException.Kind.UNAVAILABLE;
                }
            }
        }
        return StoreException.Kind.OTHER;
    }
}
