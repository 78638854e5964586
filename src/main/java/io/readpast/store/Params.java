package io.readpast.store;

import java.sql.Types;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/** Named, typed parameter values for one {@link SqlStatement} execution. */
public final class Params {

    /** A value with the JDBC type to bind it as (also when it is null). */
    public record Value(Object value, int sqlType) {
    }

    /** Marker type for instants: each engine binds them its own way. */
    public static final int INSTANT = Integer.MIN_VALUE;

    private final Map<String, Value> values = new HashMap<>();

    public static Params of() {
        return new Params();
    }

    public Params str(String name, String value) {
        return put(name, value, Types.NVARCHAR);
    }

    public Params integer(String name, Integer value) {
        return put(name, value, Types.INTEGER);
    }

    public Params lng(String name, Long value) {
        return put(name, value, Types.BIGINT);
    }

    public Params bool(String name, Boolean value) {
        return put(name, value, Types.BOOLEAN);
    }

    public Params time(String name, Instant value) {
        return put(name, value, INSTANT);
    }

    private Params put(String name, Object value, int type) {
        values.put(name, new Value(value, type));
        return this;
    }

    public Value get(String name) {
        return values.get(name);
    }
}
