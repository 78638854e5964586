package io.readpast.store;

import io.readpast.config.Engine;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Both engines have every statement, each pair takes the same parameters, and every parameter
 * of every statement became a JDBC marker: none is left in the text, and each marker has a name.
 */
class StatementCatalogTest {

    @Test
    void bothEnginesHaveEveryStatementWithTheSameParameters() {
        StatementCatalog pg = StatementCatalog.load(Engine.POSTGRESQL);
        StatementCatalog ms = StatementCatalog.load(Engine.SQLSERVER);
        List<String> problems = new java.util.ArrayList<>();
        for (Stmt stmt : Stmt.values()) {
            Set<String> pgParams = new TreeSet<>(pg.get(stmt).parameterOrder());
            Set<String> msParams = new TreeSet<>(ms.get(stmt).parameterOrder());
            if (!pgParams.equals(msParams)) {
                problems.add(stmt + ": PostgreSQL takes " + pgParams + ", SQL Server " + msParams);
            }
            check(stmt, "PostgreSQL", pg.get(stmt), ':', problems);
            check(stmt, "SQL Server", ms.get(stmt), '@', problems);
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /** Every parameter of one statement: well named, turned into a marker, no marker without a name. */
    private static void check(Stmt stmt, String engine, SqlStatement s, char marker, List<String> problems) {
        for (String name : s.parameterOrder()) {
            if (!name.matches("[a-z][a-z0-9_]*")) {
                problems.add(stmt + " (" + engine + "): parameter '" + name + "' is not snake_case");
            }
        }
        // what the driver gets must hold no named parameter of any name any more (T-SQL: only the
        // variables the batch DECLAREs, which the parser leaves alone)
        List<String> left = SqlStatement.parse("again", s.jdbcSql(), marker).parameterOrder();
        if (!left.isEmpty()) {
            problems.add(stmt + " (" + engine + "): parameters left unbound: " + left);
        }
        int markers = markers(s.jdbcSql(), marker == '@');
        if (markers != s.parameterOrder().size()) {
            problems.add(stmt + " (" + engine + "): " + markers + " JDBC markers for " + s.parameterOrder().size()
                    + " named parameters " + s.parameterOrder());
        }
    }

    /** The '?' markers in JDBC text, outside literals, quoted identifiers and comments. */
    static int markers(String sql, boolean tsql) {
        int n = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || (c == '[' && tsql)) {
                char close = c == '[' ? ']' : c;
                int end = i + 1;
                while (end < sql.length() && sql.charAt(end) != close) {
                    end++;
                }
                i = end;
            } else if (c == '-' && sql.startsWith("--", i)) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? sql.length() : end;
            } else if (c == '/' && sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? sql.length() : end + 1;
            } else if (c == '?') {
                n++;
            }
        }
        return n;
    }

    @Test
    void theChecksSeeAParameterLeftBehindOrAMarkerWithoutAName() {
        List<String> problems = new java.util.ArrayList<>();
        // a bare ? is a marker without a name
        check(Stmt.JOB_GET, "test", SqlStatement.parse("x", "SELECT 1 WHERE a = :id AND b = ?", ':'), ':', problems);
        assertEquals(1, problems.size(), problems.toString());
        assertEquals(2, markers("SELECT ? , '?' -- ?\n /* ? */ [?] ?", true));
    }

    @Test
    void postgresParametersSkipCastsLiteralsAndComments() {
        SqlStatement s = SqlStatement.parse("x",
                "-- :nope in a comment\nSELECT CAST(:a AS int), :b::text, ':c', \"x:y\" /* :d */ WHERE z = :a", ':');
        assertEquals(List.of("a", "b", "a"), s.parameterOrder());
        assertTrue(s.jdbcSql().contains("?::text"));
        assertTrue(s.jdbcSql().contains("':c'"));
    }

    @Test
    void tsqlParametersSkipDeclaredVariablesAndSystemFunctions() {
        SqlStatement s = SqlStatement.parse("x",
                "DECLARE @t TABLE (id bigint);\nINSERT INTO @t SELECT id FROM j WHERE q = @queue AND n = N'@x';\n"
                        + "IF @@ROWCOUNT = 0 SELECT @queue_2, [@odd] FROM @t;", '@');
        assertEquals(List.of("queue", "queue_2"), s.parameterOrder());
        assertTrue(s.jdbcSql().contains("@@ROWCOUNT"));
        assertTrue(s.jdbcSql().contains("FROM @t"));
    }
}
