package io.readpast.security;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.readpast.testsupport.TestDb;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin API for keys (POST/GET/DELETE /keys): keys made at run time work at once beside the
 * configured ones, are shown once and stored as digests, and reach other instances (rows another
 * instance writes are picked up).
 */
@QuarkusTest
@TestProfile(KeyAdminTest.Keys.class)
class KeyAdminTest {

    static final String OPS = "rp_test-key-admin-ops-0123456789abcdefghijklmn";
    static final String PRODUCER = "rp_test-key-admin-producer-0123456789abcdefgh";

    public static class Keys implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // one configured key, no admin among them: the admin key is stored, as another instance would store it
            return Map.of("readpast.auth.enabled", "true",
                    "readpast.auth.keys", "prod:producer:" + ApiKeys.digestHex(PRODUCER),
                    "readpast.auth.refresh", "1s");
        }
    }

    @BeforeEach
    void setUp() {
        TestDb.clean();
        execute("DELETE FROM readpast_api_key");
        storeAdmin("ops", OPS);
        // a key stored behind the broker's back (as by another instance) is accepted within a second
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                .until(() -> as(OPS).get("/keys").statusCode() == 200);
    }

    @AfterAll
    static void dropStoredKeys() {
        execute("DELETE FROM readpast_api_key");
    }

    static RequestSpecification as(String key) {
        RequestSpecification spec = given().contentType(ContentType.JSON);
        return key == null ? spec : spec.header("Authorization", "Bearer " + key);
    }

    static void storeAdmin(String name, String key) {
        execute("INSERT INTO readpast_api_key (name, roles, digest, origin) VALUES ('" + name + "', 'admin', '"
                + ApiKeys.digestHex(key) + "', 'api')");
    }

    static void execute(String sql) {
        try (Connection c = TestDb.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            c.setAutoCommit(true);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aKeyMadeThroughTheApiWorksAtOnceWithItsRoleAndScopeAndIsShownOnce() {
        Response made = as(OPS).body(Map.of("name", "mailer", "roles", List.of("worker"), "queues", List.of("emails")))
                .post("/keys");
        made.then().statusCode(201).header("Location", endsWith("/keys/mailer"))
                .body("name", equalTo("mailer")).body("roles", equalTo(List.of("worker")))
                .body("queues", equalTo(List.of("emails"))).body("origin", equalTo("api"))
                .body("createdBy", equalTo("ops"));
        String key = made.jsonPath().getString("key");
        assertTrue(key.matches("rp_[A-Za-z0-9_-]{40,}"), key);
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_api_key WHERE name = 'mailer' AND digest = ?",
                ApiKeys.digestHex(key)), "only the digest is stored");
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_api_key WHERE digest = ?", key));

        String id = as(PRODUCER).body(Map.of("queue", "emails", "type", "t")).post("/jobs")
                .then().statusCode(201).extract().path("id");
        as(key).body(Map.of("workerId", "w", "queues", List.of("emails"))).post("/claim")
                .then().statusCode(200).body("jobs[0].id", equalTo(id)).body("jobs[0].modifiedBy", equalTo("mailer"));
        as(key).body(Map.of("workerId", "w", "queues", List.of("sms"))).post("/claim").then().statusCode(403);
        as(key).body(Map.of("queue", "emails", "type", "t")).post("/jobs").then().statusCode(403);
        as(key).get("/keys").then().statusCode(403);

        String list = as(OPS).get("/keys").then().statusCode(200)
                .body("keys.name", equalTo(List.of("prod", "mailer", "ops")))
                .body("keys.origin", equalTo(List.of("configured", "api", "api")))
                .extract().asString();
        assertFalse(list.contains(key) || list.contains(ApiKeys.digestHex(key)), "neither key nor digest is listed");
        assertFalse(list.contains("\"key\""), list);

        as(OPS).delete("/keys/mailer").then().statusCode(204);
        as(key).body(Map.of("workerId", "w", "queues", List.of("emails"))).post("/claim").then().statusCode(401);
        as(OPS).delete("/keys/mailer").then().statusCode(404).contentType("application/problem+json");
        as(OPS).delete("/keys/not%20a%20name").then().statusCode(404);
    }

    @Test
    void namesAreUniqueAndConfiguredKeysAreLeftToTheConfiguration() {
        as(OPS).body(Map.of("name", "prod", "roles", List.of("worker"))).post("/keys")
                .then().statusCode(409).contentType("application/problem+json");
        as(OPS).body(Map.of("name", "ops", "roles", List.of("worker"))).post("/keys").then().statusCode(409);
        as(OPS).delete("/keys/prod").then().statusCode(409).body("detail", org.hamcrest.Matchers.containsString(
                "READPAST_API_KEYS"));
        as(PRODUCER).body(Map.of("queue", "q", "type", "t")).post("/jobs").then().statusCode(201);
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_api_key"));
    }

    @Test
    void theLastAdminKeyCannotBeDeleted() {
        as(OPS).delete("/keys/ops").then().statusCode(409).body("detail",
                org.hamcrest.Matchers.containsString("last admin key"));
        String second = as(OPS).body(Map.of("name", "ops2", "roles", List.of("admin"))).post("/keys")
                .then().statusCode(201).extract().path("key");
        as(second).delete("/keys/ops").then().statusCode(204);
        as(OPS).get("/keys").then().statusCode(401);
        as(second).get("/keys").then().statusCode(200).body("keys.name", equalTo(List.of("prod", "ops2")));
    }

    @Test
    void badRequestsAre400AndStoreNothing() {
        List<Object> bodies = List.of(
                Map.of("roles", List.of("worker")),
                Map.of("name", "has space", "roles", List.of("worker")),
                Map.of("name", "x".repeat(101), "roles", List.of("worker")),
                Map.of("name", "w"),
                Map.of("name", "w", "roles", List.of()),
                Map.of("name", "w", "roles", List.of("root")),
                Map.of("name", "w", "roles", List.of("admin"), "queues", List.of("emails")),
                Map.of("name", "w", "roles", List.of("worker"), "queues", List.of()),
                Map.of("name", "w", "roles", List.of("worker"), "queues", List.of("bad queue")),
                Map.of("name", "w", "roles", List.of("worker"), "key", "rp_chosen-by-me"),
                "{\"name\": \"w\", \"roles\": \"worker\"}",
                "not json");
        for (Object body : bodies) {
            as(OPS).body(body).post("/keys").then().statusCode(400).contentType("application/problem+json");
        }
        as(OPS).contentType(ContentType.TEXT).body("name=w").post("/keys").then().statusCode(415);
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_api_key"), "nothing was stored");
    }

    @Test
    void aKeyDeletedByAnotherInstanceStopsWorkingAtTheNextRefresh() {
        String key = as(OPS).body(Map.of("name", "temp", "roles", List.of("producer"))).post("/keys")
                .then().statusCode(201).extract().path("key");
        as(key).body(Map.of("queue", "q", "type", "t")).post("/jobs").then().statusCode(201);
        execute("DELETE FROM readpast_api_key WHERE name = 'temp'");
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                .until(() -> as(key).get("/jobs/1").statusCode() == 401);
        assertNull(as(OPS).get("/keys").jsonPath().getList("keys.name").stream()
                .filter("temp"::equals).findFirst().orElse(null));
    }

    /**
     * A key made on another instance (here: stored straight into the database) works at once,
     * also right after this instance refused an unknown key: each unknown key gets its own lookup.
     */
    @Test
    void aKeyMadeOnAnotherInstanceWorksAtOnceEvenRightAfterAnUnknownOne() {
        as("rp_not-a-key-0123456789abcdefghijklmnopqrstuvwxyz").get("/jobs/1").then().statusCode(401);
        String key = ApiKeys.mint();
        execute("INSERT INTO readpast_api_key (name, roles, digest, origin) VALUES ('elsewhere', 'producer', '"
                + ApiKeys.digestHex(key) + "', 'api')");
        as(key).body(Map.of("queue", "q", "type", "t")).post("/jobs").then().statusCode(201);
    }
}
