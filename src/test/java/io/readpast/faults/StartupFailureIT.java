package io.readpast.faults;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A broker that cannot start says why in one clear line and exits with status 1, without a stack trace. */
class StartupFailureIT {

    @Test
    void aUrlOfNoSupportedEngine() {
        expectOneLine("bad-url", "jdbc:mysql://127.0.0.1/jobs", "names no supported engine");
    }

    @Test
    void anUnreachableDatabase() {
        expectOneLine("unreachable", "jdbc:postgresql://127.0.0.1:1/jobs", "Cannot reach the database");
    }

    /**
     * The packaged jar on a SQL Server URL: the build must not have fixed the engine (it once
     * baked the embedded PostgreSQL URL it saw at build time into the run-time defaults, so every
     * SQL Server URL found two active databases). On a closed port the one line is the
     * connection's, with or without READPAST_EMBEDDED.
     */
    @Test
    void aSqlServerUrlOnAClosedPort() {
        String url = "jdbc:sqlserver://127.0.0.1:" + BrokerProcess.freePort() + ";databaseName=jobs;encrypt=false";
        expectOneLine("mssql-closed", url, "Cannot reach the database at " + url + ": ");
        BrokerProcess p = BrokerProcess.start("mssql-closed-no-embedded",
                Map.of("READPAST_DB_URL", url, "READPAST_EMBEDDED", "false"), BrokerProcess.BASEDIR);
        expectExit(p, "Cannot reach the database at " + url + ": ");
    }

    /**
     * The packaged jar on a JVM older than 21 (Debian 12's java is 17): one line saying what is
     * needed, status 1, no UnsupportedClassVersionError. Runs where such a JVM is installed.
     */
    @Test
    void aJvmOlderThan21SaysSoInOneLine() throws Exception {
        java.nio.file.Path old = null;
        for (String dir : List.of("/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/java-17-openjdk-arm64",
                "/usr/lib/jvm/temurin-17-jdk-amd64")) {
            if (java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, "bin", "java"))) {
                old = java.nio.file.Path.of(dir, "bin", "java");
                break;
            }
        }
        if (old == null) {
            System.out.println("SKIPPED aJvmOlderThan21SaysSoInOneLine: no Java 17 JVM under /usr/lib/jvm");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(old != null, "no Java 17 JVM under /usr/lib/jvm");
        Process p = new ProcessBuilder(old.toString(), "-jar", BrokerProcess.jar().toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(1, p.exitValue(), out);
        assertEquals(1, out.strip().lines().count(), "one line: " + out);
        assertTrue(out.startsWith("Readpast cannot start: it needs Java 21 or newer, and this is Java 17"), out);
    }

    /** A keys file that cannot be read: the line says why (not the path twice). */
    @Test
    void aKeysFileThatCannotBeRead() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("readpast-keys");
        String missing = dir.resolve("keys.txt").toString();
        expectExit(BrokerProcess.start("keys-missing", Map.of("READPAST_AUTH_ENABLED", "true",
                "READPAST_API_KEYS_FILE", missing), BrokerProcess.BASEDIR),
                "Cannot read READPAST_API_KEYS_FILE " + missing + ": there is no such file");
        expectExit(BrokerProcess.start("keys-dir", Map.of("READPAST_AUTH_ENABLED", "true",
                "READPAST_API_KEYS_FILE", dir.toString()), BrokerProcess.BASEDIR),
                "Cannot read READPAST_API_KEYS_FILE " + dir + ": it is a directory");
    }

    /**
     * A first start on a port another process holds: it stops before anything is generated or
     * stored (no one-time admin key shown and then lost with the failed start), says why in one
     * line, and never says "ready".
     */
    @Test
    void aPortThatIsTakenEndsTheStartBeforeAKeyIsMade() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(FaultDb.isPostgres(), "needs PostgreSQL at 127.0.0.1:5432");
        String db = "readpast_port_taken";
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres",
                "postgres", ""); java.sql.Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + db);
        }
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            BrokerProcess p = BrokerProcess.start("port-taken", Map.of(
                    "READPAST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/" + db,
                    "READPAST_AUTH_ENABLED", "true",
                    "QUARKUS_HTTP_PORT", Integer.toString(taken.getLocalPort())), BrokerProcess.BASEDIR);
            expectExit(p, "the HTTP port " + taken.getLocalPort() + " on 127.0.0.1 cannot be bound");
            assertTrue(p.logLines("generated an admin key").isEmpty(), "no key was made:\n" + p.logTail(40));
            assertTrue(p.logLines("is ready").isEmpty(), "never ready:\n" + p.logTail(40));
        }
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/" + db,
                "postgres", ""); java.sql.ResultSet r = c.createStatement().executeQuery(
                "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'readpast%'")) {
            r.next();
            assertEquals(0, r.getInt(1), "nothing was migrated or stored before the port was checked");
        }
    }

    private static void expectOneLine(String name, String url, String reason) {
        expectExit(BrokerProcess.start(name, Map.of("READPAST_DB_URL", url), BrokerProcess.BASEDIR), reason);
    }

    private static void expectExit(BrokerProcess p, String reason) {
        String name = p.name;
        await(name + " exits").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> !p.alive());
        assertEquals(1, p.exitCode(), p.logTail(40));
        List<String> lines = p.logLines("Readpast cannot start:");
        assertEquals(1, lines.size(), p.logTail(40));
        assertTrue(lines.get(0).contains(reason), lines.get(0));
        assertTrue(p.logLines("\tat ").isEmpty(), "no stack trace:\n" + p.logTail(60));
        assertTrue(p.logLines("Listening on").isEmpty(), "it never reports itself started:\n" + p.logTail(20));
    }
}
