package io.readpast.security;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Auth on and no keys configured: the broker generates an admin key on first start, prints it
 * once, stores only its digest, and serves nothing without it.
 */
@QuarkusTest
@TestProfile(SecureByDefaultTest.NoKeys.class)
class SecureByDefaultTest {

    static final Path LOG = Path.of("target", "secure-by-default.log");

    public static class NoKeys implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("readpast.auth.enabled", "true",
                    "quarkus.log.file.enabled", "true",
                    "quarkus.log.file.path", LOG.toString());
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(FreshStart.class));
        }
    }

    /** Before the broker starts: no generated key in the database, no old log. */
    public static class FreshStart implements QuarkusTestResourceLifecycleManager {
        @Override
        public Map<String, String> start() {
            // the suite's database: READPAST_TEST_DB_URL, else the embedded PostgreSQL if an earlier
            // test already started it (if not, it will start with a clean data directory anyway)
            String url = System.getenv("READPAST_TEST_DB_URL");
            if (url == null || url.isBlank()) {
                String port = System.getProperty("readpast_embedded_port");
                url = port == null ? null : "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
            }
            String user = System.getenv().getOrDefault("READPAST_TEST_DB_USERNAME", "postgres");
            String password = System.getenv().getOrDefault("READPAST_TEST_DB_PASSWORD", "");
            try (var c = url == null ? null : DriverManager.getConnection(url, user, password);
                 var s = c == null ? null : c.createStatement()) {
                if (s == null) {
                    throw new SQLException("no database started yet");
                }
                s.execute("DELETE FROM readpast_api_key");
            } catch (SQLException e) {
                // first run on an empty database: the table does not exist yet, which is just as fresh
            }
            try {
                Files.deleteIfExists(LOG);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return Map.of();
        }

        @Override
        public void stop() {
        }
    }

    @Test
    void generatesAnAdminKeyOnceAndRefusesAnonymousCalls() throws IOException {
        String log = Files.readString(LOG);
        Matcher m = Pattern.compile("(rp_[A-Za-z0-9_-]{40,})").matcher(log);
        assertTrue(m.find(), "the generated key is printed at first start");
        String key = m.group(1);
        assertTrue(!m.find(), "and printed once");
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_api_key"));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_api_key WHERE digest = ?", key),
                "only the digest is stored");
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_api_key WHERE digest = ?", ApiKeys.digestHex(key)));

        given().get("/queues").then().statusCode(401);
        given().contentType("application/json").body("{\"queue\":\"q\",\"type\":\"t\"}").post("/jobs").then().statusCode(401);
        given().header("Authorization", "Bearer " + key).get("/queues").then().statusCode(200);
        given().get("/q/health/ready").then().statusCode(200);
    }
}
