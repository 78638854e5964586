package io.readpast.faults;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The newcomer's path: the packaged broker with no READPAST_DB_URL starts an embedded
 * PostgreSQL with its data in ./readpast-data, says so in one line, prints a generated admin key,
 * and keeps its jobs (and the key) across a restart.
 */
class EmbeddedDefaultIT {

    @Test
    void startsOnAnEmbeddedDatabaseAndKeepsDataAcrossRestarts() throws Exception {
        Path dir = Files.createTempDirectory(BrokerProcess.LOGS.getParent(), "embedded-");
        Map<String, String> env = Map.of("READPAST_DB_URL", "", "READPAST_DB_USERNAME", "",
                "READPAST_AUTH_ENABLED", "true");
        Api api = new Api();
        String key;
        String id;
        BrokerProcess first = BrokerProcess.start("embedded-1", env, dir);
        try {
            awaitReady(first, api);
            assertEquals(1, first.logLines("using an embedded PostgreSQL").size(), first.logTail(30));
            assertTrue(Files.isDirectory(dir.resolve("readpast-data")), "data under ./readpast-data");
            Matcher m = Pattern.compile("(rp_[A-Za-z0-9_-]{40,})").matcher(String.join("\n", first.logLines("rp_")));
            assertTrue(m.find(), "the generated admin key is printed: " + first.logTail(40));
            key = m.group(1);
            String banner = first.logTail(200);
            assertTrue(banner.contains("Dashboard:        " + first.base.toString().replaceAll("/$", "") + "/ui/")
                    || banner.contains("Dashboard:        http://"), "the banner names the dashboard:\n" + banner);
            assertTrue(banner.contains("/q/swagger-ui"), "the banner names Swagger UI:\n" + banner);
            assertTrue(first.logLines("Readpast is ready for").stream().anyMatch(l -> l.contains("/ui/")),
                    "the ready line names the dashboard");
            Api.Reply root = api.send(first.base, "GET", "", null, Duration.ofSeconds(10));
            assertEquals(302, root.status(), "/ redirects (to /ui/, SpecRulesTest): " + root);
            assertEquals(401, api.send(first.base, "GET", "queues", null, Duration.ofSeconds(10)).status());
            Api.Reply created = api.withKey(key).post(first.base, "jobs", Map.of("queue", "try", "type", "hello"));
            assertEquals(201, created.status(), created.toString());
            id = created.body().get("id").asText();
        } finally {
            first.stop();
        }
        BrokerProcess second = BrokerProcess.start("embedded-2", env, dir);
        try {
            awaitReady(second, api);
            assertFalse(String.join("\n", second.logLines("rp_")).contains(key), "the key is printed only once");
            Api.Reply job = api.withKey(key).get(second.base, "jobs/" + id, Duration.ofSeconds(10));
            assertEquals(200, job.status(), "the job and the key survived the restart: " + job);
            assertEquals("PENDING", job.body().get("status").asText());
        } finally {
            second.stop();
        }
    }

    /**
     * kill -9 leaves the embedded PostgreSQL running without its broker: the next start stops
     * that orphan and starts again on the same data. While a broker runs, a second one on the
     * same directory refuses to start, naming the first one's PID, and leaves it alone.
     */
    @Test
    void anOrphanedEmbeddedPostgresIsReclaimedAfterKill9() throws Exception {
        Path dir = Files.createTempDirectory(BrokerProcess.LOGS.getParent(), "embedded-orphan-");
        Map<String, String> env = Map.of("READPAST_DB_URL", "", "READPAST_DB_USERNAME", "",
                "READPAST_AUTH_ENABLED", "false");
        Api api = new Api();
        BrokerProcess first = BrokerProcess.start("orphan-1", env, dir);
        String id;
        long orphan;
        try {
            awaitReady(first, api);
            Api.Reply created = api.post(first.base, "jobs", Map.of("queue", "orphan", "type", "t"));
            assertEquals(201, created.status(), created.toString());
            id = created.body().get("id").asText();

            BrokerProcess rival = BrokerProcess.start("orphan-rival", env, dir);
            await("the rival exits").atMost(Duration.ofSeconds(90)).until(() -> !rival.alive());
            assertEquals(1, rival.exitCode(), rival.logTail(30));
            String line = String.join("\n", rival.logLines("Readpast cannot start:"));
            assertTrue(line.contains("another broker (PID " + first.pid() + ")"), line + "\n" + rival.logTail(30));
            assertTrue(first.ready(api), "the first broker runs on, its database untouched");
        } finally {
            orphan = postmasterPid(dir);
            first.kill();
        }
        assertTrue(ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false),
                "kill -9 left the embedded PostgreSQL " + orphan + " running");
        BrokerProcess second = BrokerProcess.start("orphan-2", env, dir);
        try {
            awaitReady(second, api);
            assertEquals(1, second.logLines("without its broker").size(), second.logTail(30));
            assertFalse(ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false), "the orphan was stopped");
            Api.Reply job = api.get(second.base, "jobs/" + id, Duration.ofSeconds(10));
            assertEquals(200, job.status(), "the data survived: " + job);
        } finally {
            second.stop();
        }
    }

    private static long postmasterPid(Path dir) throws java.io.IOException {
        return Long.parseLong(Files.readAllLines(dir.resolve("readpast-data").resolve("postmaster.pid")).get(0).strip());
    }

    private static void awaitReady(BrokerProcess p, Api api) {
        await("embedded broker ready").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(() -> {
            if (!p.alive()) {
                throw new AssertionError("broker exited: " + p.logTail(40));
            }
            return p.ready(api);
        });
    }
}
