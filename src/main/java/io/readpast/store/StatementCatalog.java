package io.readpast.store;

import io.readpast.config.Engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Loads every {@link Stmt} of one engine from {@code sql/<engine>/}.
 * <p>
 * A statement file may share text with others through a line {@code -- include: <name>.sql},
 * which is replaced by the file {@code sql/<engine>/include/<name>.sql} at load time. The line
 * is a comment, so every file (and every fragment, which is SQL of its own) still parses in
 * the offline T-SQL check. An engine's <em>flavor</em> (Babelfish, for the SQL Server engine)
 * may give its own version of a fragment in {@code sql/<engine>/include/<flavor>/<name>.sql}:
 * the forms only that flavor needs stay there, out of the text the real engine runs.
 * <p>
 * A fragment may be a template: {@code {{name}}} or {@code {{name|default}}} in its text is
 * filled from lines {@code -- with name: expression} right after the include line (they pass
 * on to the fragments it includes). A template is not SQL of its own, so the offline check
 * parses the statements it is expanded into (StatementIncludeTest); a name the template does
 * not know, or a slot without a value or default, fails the load. The move of a finished job
 * into the archive or the dead letters is one such template per engine ({@code moved_into.sql}:
 * one column list for every mover).
 */
public final class StatementCatalog {

    /** The include directive: a whole line, {@code -- include: name.sql}. */
    static final java.util.regex.Pattern INCLUDE =
            java.util.regex.Pattern.compile("(?m)^[ \\t]*-- include: ([a-z0-9_]+\\.sql)[ \\t]*$");
    /** A value for a template's slot: a whole line {@code -- with name: expression} after an include. */
    static final java.util.regex.Pattern WITH =
            java.util.regex.Pattern.compile("\\r?\\n[ \\t]*-- with ([a-z_]+): ([^\\r\\n]+?)[ \\t]*(?=\\r?\\n|$)");
    /** A template's slot: {@code {{name}}} or {@code {{name|default}}}. */
    static final java.util.regex.Pattern SLOT = java.util.regex.Pattern.compile("\\{\\{([a-z_]+)(?:\\|([^}]*))?\\}\\}");
    private static final int MAX_INCLUDE_DEPTH = 4;

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
        return load(engine, null);
    }

    /**
     * Loads all statements of the engine, with the fragments of {@code flavor} (null: none)
     * where it has its own, failing with the list of missing files.
     */
    public static StatementCatalog load(Engine engine, String flavor) {
        char marker = engine == Engine.SQLSERVER ? '@' : ':';
        Map<Stmt, SqlStatement> map = new EnumMap<>(Stmt.class);
        List<String> missing = new ArrayList<>();
        for (Stmt stmt : Stmt.values()) {
            String path = resourcePath(engine, stmt);
            String text = read(path);
            if (text == null) {
                missing.add(path);
            } else {
                text = expand(engine, flavor, path, text, 0, missing);
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

    /** The text with every include line replaced by its fragment (fragments may include others). */
    static String expand(Engine engine, String flavor, String from, String text, int depth, List<String> missing) {
        String out = expandIncludes(engine, flavor, from, text, depth, missing);
        if (depth == 0) {
            // a slot no include line gave a value takes its default ({{name|default}})
            java.util.regex.Matcher d = java.util.regex.Pattern.compile("\\{\\{[a-z_]+\\|([^}]*)\\}\\}").matcher(out);
            out = d.replaceAll(r -> java.util.regex.Matcher.quoteReplacement(r.group(1)));
        }
        if (depth == 0 && SLOT.matcher(out).find()) {
            missing.add("a value for every {{slot}} of the templates " + from + " includes (-- with name: ...)");
        }
        return out;
    }

    private static String expandIncludes(Engine engine, String flavor, String from, String text, int depth,
            List<String> missing) {
        java.util.regex.Matcher m = INCLUDE.matcher(text);
        if (!m.find()) {
            return text;
        }
        if (depth >= MAX_INCLUDE_DEPTH) {
            throw new IllegalStateException("Includes nested deeper than " + MAX_INCLUDE_DEPTH + " in " + from);
        }
        StringBuilder out = new StringBuilder(text.length() * 2);
        int last = 0;
        do {
            String name = m.group(1);
            Map<String, String> values = new java.util.LinkedHashMap<>();
            java.util.regex.Matcher with = WITH.matcher(text);
            int end = m.end();
            with.region(end, text.length());
            while (with.lookingAt()) {
                values.put(with.group(1), with.group(2));
                end = with.end();
                with.region(end, text.length());
            }
            String fragment = null;
            String fragmentPath = null;
            if (flavor != null) {
                fragmentPath = "sql/" + engine.datasourceName() + "/include/" + flavor + "/" + name;
                fragment = read(fragmentPath);
            }
            if (fragment == null) {
                fragmentPath = "sql/" + engine.datasourceName() + "/include/" + name;
                fragment = read(fragmentPath);
            }
            out.append(text, last, m.start());
            if (fragment == null) {
                missing.add(fragmentPath + " (included by " + from + ")");
            } else {
                String body = expandIncludes(engine, flavor, fragmentPath, fragment, depth + 1, missing).stripTrailing();
                if (!values.isEmpty()) {
                    body = fill(body, values, fragmentPath + " (included by " + from + ")", missing);
                }
                out.append("-- from include/").append(name).append('\n').append(body);
            }
            last = end;
        } while (m.find(last));
        return out.append(text, last, text.length()).toString();
    }

    /** The template's slots filled from {@code values}; an unknown name or a slot left empty is reported. */
    private static String fill(String template, Map<String, String> values, String where, List<String> missing) {
        java.util.Set<String> known = new java.util.HashSet<>();
        java.util.regex.Matcher slot = SLOT.matcher(template);
        StringBuilder out = new StringBuilder(template.length() + 256);
        while (slot.find()) {
            String name = slot.group(1);
            known.add(name);
            String value = values.containsKey(name) ? values.get(name) : slot.group(2);
            if (value == null) {
                missing.add("a value for {{" + name + "}} in " + where);
                value = slot.group();
            }
            slot.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(value));
        }
        slot.appendTail(out);
        for (String name : values.keySet()) {
            if (!known.contains(name)) {
                missing.add("no slot {{" + name + "}} in " + where);
            }
        }
        return out.toString();
    }

    /**
     * A statement file's text as the broker runs it, its includes expanded (templates filled),
     * but with the include lines of {@code leaveOut} dropped; for tools that run the broker's own
     * statements (bench/run's SQL ceiling, which sends the due-job promotion apart). Fails with
     * the list of what is missing.
     */
    public static String expandedText(Engine engine, String fileName, java.util.Set<String> leaveOut) {
        String path = "sql/" + engine.datasourceName() + "/" + fileName;
        String text = read(path);
        if (text == null) {
            throw new IllegalStateException("No statement file " + path);
        }
        StringBuilder kept = new StringBuilder(text.length());
        for (String line : text.split("\n", -1)) {
            java.util.regex.Matcher m = INCLUDE.matcher(line);
            if (!(m.matches() && leaveOut.contains(m.group(1)))) {
                kept.append(line).append('\n');
            }
        }
        List<String> missing = new ArrayList<>();
        String out = expand(engine, null, path, kept.toString(), 0, missing);
        if (!missing.isEmpty()) {
            throw new IllegalStateException("Statement " + path + " is missing " + missing);
        }
        return out;
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
