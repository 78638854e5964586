package io.readpast.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * scripts/check-sqlserver-tests.py, the SQL Server workflow's last word on a leg: fed synthetic
 * Surefire/Failsafe XML, it passes a run where every SQL-Server-only class ran with no skip, and
 * fails one where such a class skipped a test, ran none, or is missing, and one where any test
 * skipped as if the engine were Babelfish. Its list of classes covers every test class of the
 * suite that guards its tests with an assumption about the engine's locking (so a new one cannot
 * be left out of the check). Needs python3 (CI has it).
 */
class SqlServerCheckScriptTest {

    private static final Path SCRIPT = Path.of("scripts/check-sqlserver-tests.py");

    /** The required classes as the script lists them. */
    private static List<String> required() throws Exception {
        Result r = run(List.of("--list-required"));
        assertEquals(0, r.code, r.output);
        return r.output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    @Test
    void aRunWhereEveryRequiredClassRanCleanPasses(@TempDir Path dir) throws Exception {
        Path surefire = dir.resolve("surefire");
        Path failsafe = dir.resolve("failsafe");
        for (String cls : required()) {
            report(cls.endsWith("IT") ? failsafe : surefire, cls, 3, List.of());
        }
        // a PostgreSQL-only test skipping on SQL Server is expected, and fine
        report(surefire, "io.readpast.LongPollTest", 4, List.of("LISTEN/NOTIFY is PostgreSQL's"));
        Result r = run(List.of("--reports", surefire.toString(), failsafe.toString()));
        assertEquals(0, r.code, r.output);
        assertTrue(r.output.contains("io.readpast.LockRulesTest: 3 tests, 0 skipped"), r.output);
    }

    @Test
    void aSkippedLockTestFailsTheRun(@TempDir Path dir) throws Exception {
        Path surefire = dir.resolve("surefire");
        for (String cls : required()) {
            report(surefire, cls, 3, cls.endsWith("LockRulesTest")
                    ? List.of("this engine ignores READPAST and UPDLOCK (Babelfish): claims wait") : List.of());
        }
        Result r = run(List.of("--reports", surefire.toString()));
        assertEquals(1, r.code, r.output);
        assertTrue(r.output.contains("FAIL io.readpast.LockRulesTest.t0 skipped: this engine ignores READPAST"), r.output);
    }

    @Test
    void aRequiredClassThatRanNoneOrIsMissingFailsTheRun(@TempDir Path dir) throws Exception {
        Path surefire = dir.resolve("surefire");
        List<String> required = required();
        for (String cls : required) {
            if (cls.endsWith("SqlServerLocksAndPlansTest")) {
                report(surefire, cls, 0, List.of()); // a suite with no test in it
            } else if (!cls.endsWith("SqlServerJarIT")) {
                report(surefire, cls, 2, List.of());
            }
        }
        Result r = run(List.of("--reports", surefire.toString(), dir.resolve("no-such-dir").toString()));
        assertEquals(1, r.code, r.output);
        assertTrue(r.output.contains("FAIL io.readpast.store.SqlServerLocksAndPlansTest: ran no test"), r.output);
        assertTrue(r.output.contains("FAIL io.readpast.faults.SqlServerJarIT: no report"), r.output);
    }

    @Test
    void anyTestSkippedAsIfOnBabelfishFailsTheRun(@TempDir Path dir) throws Exception {
        Path surefire = dir.resolve("surefire");
        for (String cls : required()) {
            report(surefire, cls, 1, List.of());
        }
        report(surefire, "io.readpast.SqlEnqueueTest", 5, List.of("Babelfish does not run EXECUTE AS USER"));
        Result r = run(List.of("--reports", surefire.toString()));
        assertEquals(1, r.code, r.output);
        assertTrue(r.output.contains("io.readpast.SqlEnqueueTest.t0 skipped as if this were not a real SQL Server"),
                r.output);
    }

    /**
     * Every test class that assumes something of the engine's locking (a SQL Server engine, a
     * SQL Server URL, rows skipped rather than waited for) is on the script's list.
     */
    @Test
    void theScriptListsEverySqlServerOnlyClassOfTheSuite() throws Exception {
        Pattern assume = Pattern.compile("(?s)[Aa]ssume(?:True|False)\\((.{0,300}?)\\);");
        Pattern marker = Pattern.compile("Engine\\.SQLSERVER|skipsLockedRows\\(\\)|READPAST_SQLSERVER_");
        Set<String> found = new TreeSet<>();
        Path root = Path.of("src/test/java");
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                Matcher m = assume.matcher(text);
                while (m.find()) {
                    if (marker.matcher(m.group(1)).find() && !m.group(1).contains("Engine.POSTGRESQL")) {
                        String cls = root.relativize(f).toString().replace('/', '.').replaceAll("\\.java$", "");
                        found.add(cls);
                    }
                }
            }
        }
        assertTrue(found.contains("io.readpast.LockRulesTest") && found.contains("io.readpast.store.SqlServerLocksAndPlansTest"),
                "the scan finds the known ones: " + found);
        Set<String> listed = new TreeSet<>(required());
        Set<String> missing = new TreeSet<>(found);
        missing.removeAll(listed);
        assertTrue(missing.isEmpty(), "SQL-Server-only test classes missing from scripts/check-sqlserver-tests.py's "
                + "REQUIRED: " + missing);
    }

    /** A Surefire report of {@code tests} tests of {@code cls}, the first ones skipped with the given reasons. */
    private static void report(Path dir, String cls, int tests, List<String> skips) throws IOException {
        Files.createDirectories(dir);
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        x.append("<testsuite name=\"").append(cls).append("\" tests=\"").append(tests).append("\" skipped=\"")
                .append(skips.size()).append("\" failures=\"0\" errors=\"0\" time=\"1.0\">\n");
        for (int i = 0; i < tests; i++) {
            x.append("  <testcase name=\"t").append(i).append("\" classname=\"").append(cls).append("\" time=\"0.1\"");
            if (i < skips.size()) {
                x.append("><skipped message=\"").append(skips.get(i).replace("\"", "&quot;").replace("<", "&lt;"))
                        .append("\"/></testcase>\n");
            } else {
                x.append("/>\n");
            }
        }
        x.append("</testsuite>\n");
        Files.writeString(dir.resolve("TEST-" + cls + ".xml"), x.toString());
    }

    private record Result(int code, String output) {
    }

    private static Result run(List<String> args) throws Exception {
        assumeTrue(onPath("python3"), "python3 is not on the PATH: scripts/check-sqlserver-tests.py is not exercised here");
        List<String> cmd = new ArrayList<>(List.of("python3", SCRIPT.toString()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(p.waitFor(), out);
    }

    private static boolean onPath(String command) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, command))) {
                return true;
            }
        }
        return false;
    }
}
