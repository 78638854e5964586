package io.readpast.store;

import io.readpast.config.Engine;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The statement loader's include directive: a line {@code -- include: name.sql} becomes the
 * fragment's text, an engine flavor's own fragment wins over the common one, a missing fragment
 * is reported by name, and every fragment file is used.
 */
class StatementIncludeTest {

    @Test
    void anIncludeLineBecomesTheFragment() {
        List<String> missing = new ArrayList<>();
        String text = "SELECT 1;\n  -- include: moved_job_webhook.sql  \nSELECT 2;\n";
        String out = StatementCatalog.expand(Engine.SQLSERVER, null, "test.sql", text, 0, missing);
        assertTrue(missing.isEmpty(), missing.toString());
        assertTrue(out.startsWith("SELECT 1;\n"), out);
        assertTrue(out.contains("INSERT INTO readpast_webhook (job_id, queue, event, url)"), out);
        assertTrue(out.endsWith("\nSELECT 2;\n"), out);
        assertFalse(out.contains("-- include:"), out);
    }

    @Test
    void fragmentsMayIncludeFragments() {
        List<String> missing = new ArrayList<>();
        String out = StatementCatalog.expand(Engine.SQLSERVER, null, "test.sql", "-- include: batch_ack.sql\n", 0, missing);
        assertTrue(missing.isEmpty(), missing.toString());
        assertTrue(out.contains("DECLARE @moved TABLE"), "batch_ack includes moved_job");
        assertTrue(out.contains("DELETE j\nOUTPUT"), "and moved_job_delete");
        assertFalse(out.contains("-- include:"), out);
    }

    @Test
    void aMissingFragmentIsNamed() {
        List<String> missing = new ArrayList<>();
        StatementCatalog.expand(Engine.POSTGRESQL, null, "x.sql", "-- include: no_such_fragment.sql\n", 0, missing);
        assertEquals(List.of("sql/postgresql/include/no_such_fragment.sql (included by x.sql)"), missing);
        // only a whole line is a directive: mentioning one in a comment is not
        String prose = "-- see -- include: no_such_fragment.sql\nSELECT 1";
        assertEquals(prose, StatementCatalog.expand(Engine.POSTGRESQL, null, "x.sql", prose, 0, missing));
    }

    @Test
    void aFlavorsFragmentWinsOverTheCommonOne() {
        String plain = StatementCatalog.load(Engine.SQLSERVER).get(Stmt.JOB_INSERT).jdbcSql();
        String babelfish = StatementCatalog.load(Engine.SQLSERVER, SqlServerDialect.BABELFISH).get(Stmt.JOB_INSERT).jdbcSql();
        assertTrue(plain.contains("SET @v = NEXT VALUE FOR readpast_job_group_seq"), "SQL Server: the documented form");
        // review C0: no statement SQL Server runs draws a sequence through a table variable's default
        StatementCatalog sqlServer = StatementCatalog.load(Engine.SQLSERVER);
        for (Stmt stmt : Stmt.values()) {
            assertFalse(sqlServer.get(stmt).jdbcSql().contains("DEFAULT (NEXT VALUE FOR"), stmt + " on SQL Server");
        }
        assertTrue(babelfish.contains("DEFAULT (NEXT VALUE FOR readpast_job_group_seq)"), "Babelfish: its own form");
        // the same parameters either way
        for (Stmt stmt : Stmt.values()) {
            assertEquals(new TreeSet<>(StatementCatalog.load(Engine.SQLSERVER).get(stmt).parameterOrder()),
                    new TreeSet<>(StatementCatalog.load(Engine.SQLSERVER, SqlServerDialect.BABELFISH).get(stmt).parameterOrder()),
                    stmt.name());
        }
    }

    /** No fragment lies unused, and no flavor overrides a fragment the engine does not have. */
    @Test
    void everyFragmentIsIncluded() throws IOException {
        for (String engine : new String[] {"postgresql", "mssql"}) {
            Path base = Path.of("src/main/resources/sql", engine);
            String all;
            try (Stream<Path> files = Files.walk(base)) {
                all = files.filter(f -> f.toString().endsWith(".sql")).map(StatementIncludeTest::read)
                        .reduce("", String::concat);
            }
            Path include = base.resolve("include");
            if (!Files.isDirectory(include)) {
                continue;
            }
            Set<String> common = new TreeSet<>();
            try (Stream<Path> files = Files.list(include)) {
                files.filter(f -> f.toString().endsWith(".sql")).forEach(f -> common.add(f.getFileName().toString()));
            }
            for (String name : common) {
                assertTrue(all.contains("-- include: " + name), engine + ": include/" + name + " is never included");
            }
            try (Stream<Path> flavors = Files.list(include)) {
                for (Path flavor : flavors.filter(Files::isDirectory).toList()) {
                    try (Stream<Path> files = Files.list(flavor)) {
                        for (Path f : files.toList()) {
                            assertTrue(common.contains(f.getFileName().toString()),
                                    engine + ": " + flavor.getFileName() + "/" + f.getFileName() + " overrides nothing");
                        }
                    }
                }
            }
        }
    }

    /**
     * The text SQL Server runs is the expanded one: each statement that includes fragments, with
     * its fragments in place (and Babelfish's, where they differ), must parse with the offline
     * T-SQL parser too. The parser takes about ten seconds for a statement holding the claim, so
     * this runs in .ci/run (READPAST_PARSE_EXPANDED_TSQL=true, with sqlfluff installed) and skips
     * elsewhere.
     */
    @Test
    void expandedSqlServerStatementsParse() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("true".equals(System.getenv("READPAST_PARSE_EXPANDED_TSQL")),
                "READPAST_PARSE_EXPANDED_TSQL is not true: the expanded T-SQL is parsed in .ci/run only");
        org.junit.jupiter.api.Assumptions.assumeTrue(onPath("sqlfluff"),
                "sqlfluff is not on the PATH (apt-get install sqlfluff): the expanded T-SQL is not parsed here");
        Path dir = Path.of("target/sql-expanded");
        if (Files.isDirectory(dir)) {
            try (Stream<Path> old = Files.list(dir)) {
                for (Path f : old.toList()) {
                    Files.delete(f);
                }
            }
        }
        Files.createDirectories(dir);
        for (Stmt stmt : Stmt.values()) {
            String path = StatementCatalog.resourcePath(Engine.SQLSERVER, stmt);
            String raw = read(Path.of("src/main/resources", path));
            if (!StatementCatalog.INCLUDE.matcher(raw).find()) {
                continue; // parsed as it is by .ci/run
            }
            List<String> missing = new ArrayList<>();
            String plain = StatementCatalog.expand(Engine.SQLSERVER, null, path, raw, 0, missing);
            String babelfish = StatementCatalog.expand(Engine.SQLSERVER, SqlServerDialect.BABELFISH, path, raw, 0, missing);
            assertTrue(missing.isEmpty(), missing.toString());
            Files.writeString(dir.resolve(stmt.fileName()), plain);
            if (!babelfish.equals(plain)) {
                Files.writeString(dir.resolve("babelfish_" + stmt.fileName()), babelfish);
            }
        }
        List<String> cmd = List.of("sqlfluff", "parse", "--dialect", "tsql", dir.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        int rc = p.waitFor();
        List<String> bad = output.lines().filter(l -> l.contains("PRS") || l.contains("unparsable")).limit(20).toList();
        assertTrue(rc == 0 && bad.isEmpty(), "expanded T-SQL does not parse (see target/sql-expanded):\n"
                + String.join("\n", bad));
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
