package io.readpast.store;

import io.readpast.config.Engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Loads every {@link Stmt} of one engine from {@code sql/<engine>/}. */
public final class StatementCatalog {

    /**
     * PostgreSQL re-plans a prepared statement at every execution while its generic plan looks
     * dearer than the custom ones, and a {@code LIMIT} parameter always makes it look so (10% of
     * the rows). For the claim, ack-and-claim, batch ack and the enqueues, whose plans do not
     * depend on the values, that planning cost as much as the execution. Setting
     * {@code plan_cache_mode} for the transaction only ({@code is_local}), in the same round
     * trip, lets their prepared statements reuse one plan; every other statement keeps the
     * server's setting.
     */
    static final String PG_GENERIC_PLAN = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true);";

    private final Map<Stmt, SqlStatement> statements;

    private StatementCatalog(Map<Stmt, SqlStatement> statements) {
        this.statements = statements;
    }

    public SqlStatement get(Stmt stmt) {
        return statements.get(stmt);
    }

    /** Loads all statements of the engine, failing with the list of missing files. */
    public static StatementCatalog load(Engine engine) {
        char marker = engine == Engine.SQLSERVER ? '@' : ':';
        Map<Stmt, SqlStatement> map = new EnumMap<>(Stmt.class);
        List<String> missing = new ArrayList<>();
        for (Stmt stmt : Stmt.values()) {
            String path = resourcePath(engine, stmt);
            String text = read(path);
            if (text == null) {
                missing.add(path);
            } else {
                SqlStatement s = SqlStatement.parse(stmt.name(), text, marker);
                if (s.genericPlan() && engine == Engine.POSTGRESQL) {
                    s = s.withPreamble(PG_GENERIC_PLAN, 1);
                }
                map.put(stmt, s);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("Statements missing for " + engine + ": " + missing);
        }
        return new StatementCatalog(map);
    }

    public static String resourcePath(Engine engine, Stmt stmt) {
        return "sql/" + engine.datasourceName() + "/" + stmt.fileName();
    }

    private static String read(String path) {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        if (cl == null) {
            cl = StatementCatalog.class.getClassLoader();
        }
        try (InputStream in = cl.getResourceAsStream(path)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read " + path, e);
        }
    }
}
