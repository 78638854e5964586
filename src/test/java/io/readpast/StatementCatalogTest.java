package io.readpast;

import io.readpast.config.Engine;
import io.readpast.store.SqlStatement;
import io.readpast.store.StatementCatalog;
import io.readpast.store.Stmt;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Both engines have every statement, and each pair takes the same parameters. */
class StatementCatalogTest {

    @Test
    void bothEnginesHaveEveryStatementWithTheSameParameters() {
        StatementCatalog pg = StatementCatalog.load(Engine.POSTGRESQL);
        StatementCatalog ms = StatementCatalog.load(Engine.SQLSERVER);
        for (Stmt stmt : Stmt.values()) {
            Set<String> pgParams = new TreeSet<>(pg.get(stmt).parameterOrder());
            Set<String> msParams = new TreeSet<>(ms.get(stmt).parameterOrder());
            assertEquals(pgParams, msParams, "parameters of " + stmt);
            assertFalse(pg.get(stmt).jdbcSql().contains(":" + "queue "), stmt + " left a named parameter unbound");
        }
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
