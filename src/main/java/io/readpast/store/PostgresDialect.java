package io.readpast.store;

import io.readpast.config.Engine;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** PostgreSQL: timestamptz columns, SQLSTATE error classes. */
public final class PostgresDialect implements Dialect {

    @Override
    public Engine engine() {
        return Engine.POSTGRESQL;
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
    public StoreException.Kind classifyEngine(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return null;
        }
        return switch (state) {
            case "40001", "40P01" -> StoreException.Kind.TRANSIENT;   // serialization failure, deadlock
            case "23505" -> StoreException.Kind.DUPLICATE_KEY;
            // admin/crash shutdown, cannot connect now, too many connections, read-only standby
            case "57P01", "57P02", "57P03", "53300", "25006" -> StoreException.Kind.UNAVAILABLE;
            default -> null;
        };
    }
}
