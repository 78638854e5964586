package io.readpast.store;

import io.readpast.config.Engine;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** SQL Server: datetime2 columns holding UTC, error numbers from SQLException.getErrorCode(). */
public final class SqlServerDialect implements Dialect {

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

    @Override
    public StoreException.Kind classifyEngine(SQLException e) {
        return switch (e.getErrorCode()) {
            case 1205 -> StoreException.Kind.TRANSIENT;               // deadlock victim
            case 2601, 2627 -> StoreException.Kind.DUPLICATE_KEY;     // unique index / constraint
            // database not available / being recovered / shutting down
            case 904, 921, 922, 942, 6005, 40613 -> StoreException.Kind.UNAVAILABLE;
            default -> null;
        };
    }
}
