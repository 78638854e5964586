package io.readpast.faults;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged jar on a real SQL Server (or Babelfish) URL, as a user starts it: it migrates the
 * database and serves the whole job flow. Runs wherever READPAST_SQLSERVER_JAR_URL (or a
 * jdbc:sqlserver: READPAST_TEST_DB_URL) names one; skips elsewhere with the reason.
 */
class SqlServerJarIT {

    static String url() {
        String url = System.getenv("READPAST_SQLSERVER_JAR_URL");
        if (url == null || url.isBlank()) {
            String test = System.getenv("READPAST_TEST_DB_URL");
            url = test != null && test.startsWith("jdbc:sqlserver:") ? test : null;
        }
        return url;
    }

    @Test
    void migratesAndServesOnSqlServer() throws Exception {
        String url = url();
        Assumptions.assumeTrue(url != null, "no SQL Server here: set READPAST_SQLSERVER_JAR_URL "
                + "(jdbc:sqlserver://host:1433;databaseName=db;encrypt=false) and READPAST_SQLSERVER_JAR_USERNAME/_PASSWORD");
        String user = firstSet("READPAST_SQLSERVER_JAR_USERNAME", "READPAST_TEST_DB_USERNAME");
        String password = firstSet("READPAST_SQLSERVER_JAR_PASSWORD", "READPAST_TEST_DB_PASSWORD");
        BrokerProcess p = BrokerProcess.start("mssql-jar", Map.of("READPAST_DB_URL", url,
                "READPAST_DB_USERNAME", user, "READPAST_DB_PASSWORD", password), BrokerProcess.BASEDIR);
        Api api = new Api();
        try {
            await("broker on SQL Server ready").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        if (!p.alive()) {
                            throw new AssertionError("broker exited: " + p.logTail(40));
                        }
                        return p.ready(api);
                    });
            Api.Reply created = api.post(p.base, "jobs", Map.of("queue", "jar-mssql", "type", "t",
                    "payload", Map.of("n", 12345678901234567L)));
            assertEquals(201, created.status(), created.toString());
            Api.Reply claimed = api.post(p.base, "claim", Map.of("workerId", "w", "queues", List.of("jar-mssql"),
                    "limit", 5));
            assertEquals(200, claimed.status(), claimed.toString());
            assertEquals(1, claimed.body().get("jobs").size(), claimed.toString());
            var job = claimed.body().get("jobs").get(0);
            Api.Reply done = api.post(p.base, "jobs/" + job.get("id").asText() + "/complete",
                    Map.of("leaseId", job.get("leaseId").asText()));
            assertEquals(200, done.status(), done.toString());
            assertTrue(p.logLines("Readpast cannot start").isEmpty(), p.logTail(40));
        } finally {
            p.stop();
        }
    }

    private static String firstSet(String... names) {
        for (String n : names) {
            String v = System.getenv(n);
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return "";
    }
}
