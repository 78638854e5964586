package io.readpast.faults;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A running broker (the packaged jar, keys required) whose database starts refusing new
 * connections, for each way PostgreSQL refuses them: the database does not allow connections
 * (SQLSTATE 55000), the login is disabled (28000), the database is gone under its name
 * (3D000), nothing listens (08001, in DatabaseRestartIT). The open connections are terminated
 * (57P01) so that every call needs a fresh one. Every call is a 503 problem with Retry-After,
 * never a 500 and never a 401 for an unknown key (the key store cannot be read); the broker
 * recovers by itself when the database takes connections again, and every acknowledged job is
 * there.
 */
class ConnectRefusalIT {

    private static final String DB = "readpast_connect";
    private static final String ROLE = "readpast_connect_user";
    private static final String ADMIN_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";

    private static BrokerProcess broker;
    private static Api api;
    private static String key;
    private static int acknowledged;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(FaultDb.isPostgres(), "ConnectRefusalIT needs PostgreSQL at 127.0.0.1:5432 (READPAST_FAULTS_DB_URL is "
                + FaultDb.URL + ")");
        admin("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)", "DROP DATABASE IF EXISTS " + DB + "_moved WITH (FORCE)",
                "DROP ROLE IF EXISTS " + ROLE, "CREATE ROLE " + ROLE + " LOGIN", "CREATE DATABASE " + DB + " OWNER " + ROLE);
        key = io.readpast.security.ApiKeys.mint();
        broker = BrokerProcess.start("connect-refusal", Map.of(
                "READPAST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/" + DB,
                "READPAST_DB_USERNAME", ROLE,
                "READPAST_DB_PASSWORD", "",
                "READPAST_AUTH_ENABLED", "true",
                // every refusal answered at once: the failover wait is HaFailoverIT's to hold
                "READPAST_DB_FAILOVER_WAIT", "PT0S",
                "READPAST_API_KEYS", "ops:admin:" + io.readpast.security.ApiKeys.digestHex(key)), BrokerProcess.BASEDIR);
        api = new Api().withKey(key);
        await("broker ready").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                .until(() -> broker.ready(new Api()));
        enqueueOk();
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.kill();
        }
        admin("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)", "DROP DATABASE IF EXISTS " + DB + "_moved WITH (FORCE)",
                "DROP ROLE IF EXISTS " + ROLE);
    }

    private static void admin(String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(ADMIN_URL, "postgres", "");
             Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static void terminate(String db) throws SQLException {
        admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db + "'");
    }

    private static URI base() {
        return broker.base;
    }

    private static void enqueueOk() throws IOException {
        Api.Reply r = api.post(base(), "/jobs", Map.of("queue", "refusal", "type", "t"));
        assertEquals(201, r.status(), r.toString());
        acknowledged++;
    }

    /**
     * Waits until the database's refusal reaches the API (terminated connections first answer
     * 57P01), then checks every kind of call: a 503 problem with Retry-After naming the SQLSTATE.
     */
    private static void expectRefused(String sqlstate) throws IOException {
        AtomicReference<Api.Reply> last = new AtomicReference<>();
        await("the broker answers SQLSTATE " + sqlstate).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    Api.Reply r = api.post(base(), "/jobs", Map.of("queue", "refusal", "type", "t"));
                    last.set(r);
                    assertTrue(r.status() == 503 || r.status() == 201, "only 201 or 503 while refusing: " + r);
                    if (r.status() == 201) {
                        acknowledged++;
                    }
                    return r.status() == 503 && r.raw().contains(sqlstate);
                });
        Api unknown = new Api().withKey("rp_unknown-0123456789abcdefghijklmnopqrstuvwxyz01");
        List<String> wrong = new ArrayList<>();
        List<Api.Reply> replies = List.of(
                api.post(base(), "/jobs", Map.of("queue", "refusal", "type", "t")),
                api.post(base(), "/claim", Map.of("workerId", "w", "queues", List.of("refusal"))),
                api.get(base(), "/jobs/1", Duration.ofSeconds(30)),
                api.get(base(), "/queues", Duration.ofSeconds(30)),
                unknown.get(base(), "/jobs/1", Duration.ofSeconds(30)));
        for (Api.Reply r : replies) {
            if (r.status() != 503 || r.retryAfter() == null || !r.problemJson()
                    || !"urn:readpast:problem:database-unavailable".equals(r.body().path("type").asText())) {
                wrong.add(r.toString());
            }
        }
        assertEquals(List.of(), wrong, "every call is a 503 with Retry-After while the database refuses ("
                + sqlstate + "); first: " + last.get());
        assertTrue(broker.alive(), "the broker runs on");
    }

    private static void expectRecovered() {
        await("the broker recovers").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> {
            Api.Reply r = api.post(base(), "/jobs", Map.of("queue", "refusal", "type", "t"));
            if (r.status() == 201) {
                acknowledged++;
                return true;
            }
            assertEquals(503, r.status(), r.toString());
            return false;
        });
    }

    @Test
    void everyConnectTimeRefusalIsA503AndTheBrokerRecovers() throws Exception {
        // connections not allowed: 55000
        admin("ALTER DATABASE " + DB + " ALLOW_CONNECTIONS false");
        terminate(DB);
        expectRefused("55000");
        admin("ALTER DATABASE " + DB + " ALLOW_CONNECTIONS true");
        expectRecovered();

        // the login disabled (as a rotated or revoked account): 28000
        admin("ALTER ROLE " + ROLE + " NOLOGIN");
        terminate(DB);
        expectRefused("28000");
        admin("ALTER ROLE " + ROLE + " LOGIN");
        expectRecovered();

        // the database gone under its name (dropped, restored elsewhere): 3D000
        admin("ALTER DATABASE " + DB + " ALLOW_CONNECTIONS false");
        terminate(DB);
        admin("ALTER DATABASE " + DB + " RENAME TO " + DB + "_moved", "ALTER DATABASE " + DB + "_moved ALLOW_CONNECTIONS true");
        expectRefused("3D000");
        admin("ALTER DATABASE " + DB + "_moved ALLOW_CONNECTIONS false");
        terminate(DB + "_moved");
        admin("ALTER DATABASE " + DB + "_moved RENAME TO " + DB, "ALTER DATABASE " + DB + " ALLOW_CONNECTIONS true");
        expectRecovered();

        // nothing acknowledged was lost
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/" + DB, "postgres", "");
             Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT count(*) FROM readpast_job WHERE queue = 'refusal'")) {
            rs.next();
            assertEquals(acknowledged, rs.getInt(1), "every 201 is a stored job, and nothing else is");
        }
        assertTrue(broker.logLines("ERROR").isEmpty(), "no ERROR lines: database refusals are WARN\n" + broker.logTail(40));
    }
}
