package io.readpast.store;

import java.util.ArrayList;
import java.util.List;

/**
 * One SQL statement loaded from a resource file, with its named parameters turned into JDBC
 * {@code ?} markers. PostgreSQL files name parameters {@code :name}; SQL Server files name them
 * {@code @name} so that the T-SQL parser used in CI can read them. In T-SQL, a name the file
 * itself DECLAREs is a local variable, not a parameter. Literals, quoted identifiers and
 * comments are copied as they are.
 */
public final class SqlStatement {

    /**
     * A file whose header holds this line asks to run with a generic plan where the engine lets
     * a statement choose (PostgreSQL): see {@link #withPreamble}.
     */
    public static final String GENERIC_PLAN_DIRECTIVE = "-- readpast: generic-plan";

    private final String name;
    private final String jdbcSql;
    private final List<String> parameterOrder;
    private final boolean genericPlan;
    private final int leadingResults;

    private SqlStatement(String name, String jdbcSql, List<String> parameterOrder, boolean genericPlan,
                         int leadingResults) {
        this.name = name;
        this.jdbcSql = jdbcSql;
        this.parameterOrder = List.copyOf(parameterOrder);
        this.genericPlan = genericPlan;
        this.leadingResults = leadingResults;
    }

    public String name() {
        return name;
    }

    /** The text handed to JDBC, with {@code ?} markers. */
    public String jdbcSql() {
        return jdbcSql;
    }

    /** The parameter name of each {@code ?}, in order; a name may repeat. */
    public List<String> parameterOrder() {
        return parameterOrder;
    }

    /** True when the file carries {@link #GENERIC_PLAN_DIRECTIVE}. */
    public boolean genericPlan() {
        return genericPlan;
    }

    /**
     * Results the driver returns before the statement's own (those of a preamble): the caller
     * steps over them.
     */
    public int leadingResults() {
        return leadingResults;
    }

    /**
     * This statement sent after a parameterless preamble statement, in the same text and so in
     * the same round trip and transaction (pgjdbc sends the parts of one text before a single
     * Sync). The preamble's results come first; {@link #leadingResults()} counts them.
     */
    public SqlStatement withPreamble(String preamble, int preambleResults) {
        return new SqlStatement(name, preamble + "\n" + jdbcSql, parameterOrder, genericPlan,
                leadingResults + preambleResults);
    }

    public static SqlStatement parse(String name, String text, char marker) {
        java.util.Set<String> declared = marker == '@' ? declaredVariables(text) : java.util.Set.of();
        StringBuilder out = new StringBuilder(text.length());
        List<String> order = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\'' || c == '"' || (c == '[' && marker == '@')) {
                char close = c == '[' ? ']' : c;
                int end = i + 1;
                while (end < n) {
                    if (text.charAt(end) == close) {
                        if (end + 1 < n && text.charAt(end + 1) == close) {
                            end += 2;
                            continue;
                        }
                        break;
                    }
                    end++;
                }
                out.append(text, i, Math.min(end + 1, n));
                i = end + 1;
            } else if (c == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
                int end = text.indexOf('\n', i);
                end = end < 0 ? n : end;
                out.append(text, i, end);
                i = end;
            } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
                int end = text.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                out.append(text, i, end);
                i = end;
            } else if (c == marker && i + 1 < n && text.charAt(i + 1) == marker) {
                // "::" cast in PostgreSQL, "@@" system function in T-SQL
                out.append(c).append(c);
                i += 2;
            } else if (c == marker && i + 1 < n && isIdentStart(text.charAt(i + 1))
                    && (i == 0 || !isIdentPart(text.charAt(i - 1)))) {
                int end = i + 1;
                while (end < n && isIdentPart(text.charAt(end))) {
                    end++;
                }
                String param = text.substring(i + 1, end);
                if (declared.contains(param.toLowerCase(java.util.Locale.ROOT))) {
                    out.append(text, i, end);
                } else {
                    out.append('?');
                    order.add(param);
                }
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        boolean generic = text.lines().anyMatch(l -> l.strip().startsWith(GENERIC_PLAN_DIRECTIVE));
        return new SqlStatement(name, out.toString().strip(), order, generic, 0);
    }

    private static java.util.Set<String> declaredVariables(String text) {
        java.util.Set<String> names = new java.util.HashSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("(?i)\\bDECLARE\\s+@([A-Za-z_][A-Za-z0-9_]*)").matcher(text);
        while (m.find()) {
            names.add(m.group(1).toLowerCase(java.util.Locale.ROOT));
        }
        return names;
    }

    private static boolean isIdentStart(char c) {
        return Character.isLetter(c) || c == '_';
    }

    private static boolean isIdentPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }
}
