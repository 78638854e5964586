package io.readpast.faults;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Clients generated from openapi/ by OpenAPI Generator (typescript-fetch, Java native, Python),
 * compiled unpatched, enqueue with runAt and claim from every queue against the packaged jar
 * (keys required): scripts/generated-clients.sh with src/test/clients/check.*. TypeScript and
 * Java must pass; Python passes, or is skipped with the reason printed when its packages do not
 * install here.
 */
class GeneratedClientsIT {

    private static final String DB = "readpast_generated_clients";

    @Test
    void generatedClientsCompileAndWork() throws Exception {
        assumeTrue(FaultDb.isPostgres(), "needs PostgreSQL at 127.0.0.1:5432");
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + DB);
        }
        String key = io.readpast.security.ApiKeys.mint();
        BrokerProcess broker = BrokerProcess.start("clients", Map.of(
                "READPAST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/" + DB,
                "READPAST_AUTH_ENABLED", "true",
                "READPAST_API_KEYS", "ops:admin:" + io.readpast.security.ApiKeys.digestHex(key)), BrokerProcess.BASEDIR);
        try {
            await("broker ready").atMost(Duration.ofSeconds(90)).until(() -> broker.ready(new Api()));
            Path log = BrokerProcess.LOGS.resolve("generated-clients.log");
            ProcessBuilder pb = new ProcessBuilder("bash", "scripts/generated-clients.sh")
                    .directory(BrokerProcess.BASEDIR.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("READPAST_URL", broker.base.toString().replaceAll("/$", ""));
            pb.environment().put("READPAST_API_KEY", key);
            pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
            Process p = pb.start();
            boolean done = p.waitFor(12, TimeUnit.MINUTES);
            if (!done) {
                p.destroyForcibly();
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            System.out.println(out);
            assertTrue(done, "generated-clients.sh finished:\n" + out);
            List<String> lines = out.lines().toList();
            assertTrue(lines.contains("PASS typescript"), "typescript-fetch client:\n" + out);
            assertTrue(lines.contains("PASS java"), "Java client:\n" + out);
            assertTrue(lines.contains("PASS python") || lines.stream().anyMatch(l -> l.startsWith("SKIP python: ")),
                    "Python client passes, or says why it cannot run here:\n" + out);
            assertTrue(lines.stream().noneMatch(l -> l.startsWith("FAIL")), out);
        } finally {
            broker.stop();
        }
    }
}
