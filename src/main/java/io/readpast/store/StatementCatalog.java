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
                map.put(stmt, SqlStatement.parse(stmt.name(), text, marker));
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
