package io.readpast.faults;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The PostgreSQL examples of docs/sql-enqueue.md, pasted into bash against a fresh database
 * that the packaged jar migrated: the application role enqueues inside its own transactions
 * (psql), a worker claims the committed jobs over HTTP from the jar, the rolled-back order left
 * no job, and the refused call wrote nothing.
 */
class SqlEnqueueDocsIT {

    private static final String DB = "readpast_sqldocs";

    @Test
    void theDocumentedPsqlExamplesRunAndTheirJobsAreClaimedOverHttp() throws Exception {
        assumeTrue(FaultDb.isPostgres(), "needs PostgreSQL at 127.0.0.1:5432");
        assumeTrue(new ProcessBuilder("bash", "-c", "command -v psql").start().waitFor() == 0,
                "the examples need psql");
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
            s.execute("DROP ROLE IF EXISTS billing_app");
            s.execute("CREATE DATABASE " + DB);
        }
        String doc = "\n" + Files.readString(BrokerProcess.BASEDIR.resolve("docs/sql-enqueue.md"), StandardCharsets.UTF_8);
        int from = doc.indexOf("\n## PostgreSQL examples\n");
        int to = doc.indexOf("\n## End of PostgreSQL examples\n");
        assertTrue(from >= 0 && to > from, "docs/sql-enqueue.md has its PostgreSQL examples section");
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("(?s)```bash\n(.*?)```").matcher(doc.substring(from, to));
        while (m.find()) {
            blocks.add(m.group(1));
        }
        String dbLine = "DB=postgresql://postgres@127.0.0.1:5432/readpast\n";
        String script = String.join("\n", blocks);
        assertTrue(script.contains(dbLine), "the examples set DB as expected");

        BrokerProcess broker = BrokerProcess.start("sqldocs",
                Map.of("READPAST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/" + DB), BrokerProcess.BASEDIR);
        try {
            Api api = new Api();
            await("broker ready").atMost(Duration.ofSeconds(90)).until(() -> broker.ready(api));
            Path file = Files.createTempFile("sql-enqueue-examples", ".sh");
            Files.writeString(file, "set -eu\n" + script.replace(dbLine, "DB=postgresql://postgres@127.0.0.1:5432/" + DB + "\n"),
                    StandardCharsets.UTF_8);
            Path log = BrokerProcess.LOGS.resolve("sql-enqueue-examples.log");
            Process p = new ProcessBuilder("bash", file.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean done = p.waitFor(2, TimeUnit.MINUTES);
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(done, "the examples finished:\n" + out);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("'maxAttempts' must be between 1 and 1000 (got 0).") && out.contains("refused, as expected"),
                    "the bad call was refused with the field's rule:\n" + out);

            // a worker claims what committed: the welcome, the receipt, and (delayed) the invoice
            JsonNode claim = api.postOrFail(broker.base, "/claim",
                    Map.of("workerId", "docs", "queues", List.of("emails"), "limit", 10)).body();
            TreeSet<String> types = new TreeSet<>();
            for (JsonNode job : claim.get("jobs")) {
                types.add(job.get("type").asText());
                assertEquals(42, job.get("payload").get("order").asInt(), job.toString());
            }
            assertEquals(List.of("receipt", "welcome"), new ArrayList<>(types), "the committed jobs: " + claim);
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/" + DB, "postgres", "");
                 Statement s = c.createStatement()) {
                ResultSet rs = s.executeQuery("SELECT count(*) FROM readpast_job WHERE payload LIKE '%43%'");
                rs.next();
                assertEquals(0, rs.getInt(1), "the rolled-back order left no job");
                rs = s.executeQuery("SELECT status, created_by FROM readpast_job WHERE queue = 'billing'");
                assertTrue(rs.next(), "the delayed invoice is stored");
                assertEquals(6, rs.getInt(1), "scheduled: not due for a minute");
                assertEquals("sql:billing_app", rs.getString(2));
                rs = s.executeQuery("SELECT count(*) FROM orders");
                rs.next();
                assertEquals(1, rs.getInt(1), "the committed order only");
            }
        } finally {
            broker.stop();
        }
    }
}
