package io.readpast.security;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.readpast.testsupport.TestDb;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import org.jboss.logmanager.ExtHandler;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole role x endpoint matrix, queue scopes, createdBy/modifiedBy, and no keys in logs or responses. */
@QuarkusTest
@TestProfile(SecurityTest.Keys.class)
class SecurityTest {

    static final String ADMIN = "rp_test-admin-0123456789abcdefghijklmnopqrstuv";
    static final String PRODUCER = "rp_test-producer-0123456789abcdefghijklmnopqr";
    static final String WORKER = "rp_test-worker-0123456789abcdefghijklmnopqrstu";
    static final String BOTH = "rp_test-both-0123456789abcdefghijklmnopqrstuvwx";
    static final String SCOPED_WORKER = "rp_test-scoped-worker-0123456789abcdefghijklm";
    static final String SCOPED_PRODUCER = "rp_test-scoped-producer-0123456789abcdefghijk";
    static final List<String> ALL_KEYS = List.of(ADMIN, PRODUCER, WORKER, BOTH, SCOPED_WORKER, SCOPED_PRODUCER);

    public static class Keys implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            String keys = String.join(",",
                    "admin:admin:" + ApiKeys.digestHex(ADMIN),
                    "prod:producer:" + ApiKeys.digestHex(PRODUCER),
                    "work:worker:" + ApiKeys.digestHex(WORKER),
                    "both:producer+worker:" + ApiKeys.digestHex(BOTH),
                    "scoped:worker:" + ApiKeys.digestHex(SCOPED_WORKER) + ":queues=emails|sms",
                    "scopedprod:producer:" + ApiKeys.digestHex(SCOPED_PRODUCER) + ":queues=emails");
            return Map.of("readpast.auth.enabled", "true", "readpast.auth.keys", keys);
        }
    }

    /** Every log record written while this class runs. */
    static final ConcurrentLinkedQueue<String> LOGS = new ConcurrentLinkedQueue<>();
    static final ExtHandler CAPTURE = new ExtHandler() {
        @Override
        protected void doPublish(ExtLogRecord record) {
            LOGS.add(String.valueOf(record.getFormattedMessage()) + " " + record.getThrown());
        }
    };
    static final List<String> BODIES = new ArrayList<>();

    @BeforeAll
    static void captureLogs() {
        org.jboss.logmanager.Logger.getLogger("").addHandler(CAPTURE);
    }

    @AfterAll
    static void stopCapture() {
        org.jboss.logmanager.Logger.getLogger("").removeHandler(CAPTURE);
    }

    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    static RequestSpecification as(String key) {
        RequestSpecification spec = given().contentType(ContentType.JSON);
        return key == null ? spec : spec.header("Authorization", "Bearer " + key);
    }

    /** One endpoint of the API, the body it is called with here, and the non-admin roles it allows. */
    record Endpoint(String method, String path, String body, Set<Role> roles) {
        Response call(String key) {
            RequestSpecification spec = as(key).body(body == null ? "" : body);
            Response r = spec.request(method, path);
            synchronized (BODIES) {
                BODIES.add(r.asString());
            }
            return r;
        }
    }

    static List<Endpoint> endpoints(String jobId) {
        String lease = "{\"leaseId\":\"00000000-0000-4000-8000-000000000000\"}";
        Set<Role> producer = EnumSet.of(Role.PRODUCER);
        Set<Role> worker = EnumSet.of(Role.WORKER);
        Set<Role> admin = EnumSet.noneOf(Role.class);
        return List.of(
                new Endpoint("POST", "/jobs", "{\"queue\":\"emails\",\"type\":\"t\"}", producer),
                new Endpoint("POST", "/jobs/batch", "{\"jobs\":[{\"queue\":\"emails\",\"type\":\"t\"}]}", producer),
                new Endpoint("GET", "/jobs/" + jobId, null, producer),
                new Endpoint("POST", "/claim", "{\"workerId\":\"w\",\"queues\":[\"nothing-here\"]}", worker),
                new Endpoint("POST", "/jobs/" + jobId + "/heartbeat", lease, worker),
                new Endpoint("POST", "/jobs/" + jobId + "/complete", lease, worker),
                new Endpoint("POST", "/jobs/" + jobId + "/fail", lease, worker),
                new Endpoint("POST", "/jobs/" + jobId + "/release", lease, worker),
                new Endpoint("POST", "/jobs/complete", "{\"items\":[{\"id\":\"" + jobId
                        + "\",\"leaseId\":\"00000000-0000-4000-8000-000000000000\"}]}", worker),
                new Endpoint("POST", "/jobs/heartbeat", "{\"items\":[{\"id\":\"" + jobId
                        + "\",\"leaseId\":\"00000000-0000-4000-8000-000000000000\"}]}", worker),
                new Endpoint("POST", "/jobs/fail", "{\"items\":[{\"id\":\"" + jobId
                        + "\",\"leaseId\":\"00000000-0000-4000-8000-000000000000\"}]}", worker),
                new Endpoint("POST", "/jobs/release", "{\"items\":[{\"id\":\"" + jobId
                        + "\",\"leaseId\":\"00000000-0000-4000-8000-000000000000\"}]}", worker),
                new Endpoint("GET", "/jobs", null, admin),
                new Endpoint("POST", "/jobs/" + jobId + "/cancel", null, admin),
                new Endpoint("POST", "/jobs/" + jobId + "/requeue", "{}", admin),
                new Endpoint("DELETE", "/jobs/" + jobId, null, admin),
                new Endpoint("GET", "/dead-letters", null, admin),
                new Endpoint("GET", "/queues", null, admin),
                new Endpoint("GET", "/queues/emails", null, admin),
                new Endpoint("PUT", "/queues/other", "{\"paused\":false}", admin),
                new Endpoint("POST", "/queues/other/pause", null, admin),
                new Endpoint("POST", "/queues/other/resume", null, admin),
                new Endpoint("GET", "/stats/throughput", null, admin),
                new Endpoint("GET", "/stats/merging", null, admin),
                new Endpoint("GET", "/me", null, EnumSet.of(Role.PRODUCER, Role.WORKER)),
                new Endpoint("GET", "/keys", null, admin),
                new Endpoint("POST", "/keys", "{\"name\":\"matrix-key\",\"roles\":[\"worker\"]}", admin),
                new Endpoint("DELETE", "/keys/matrix-key", null, admin));
    }

    @Test
    void roleByEndpointMatrix() {
        String existing = as(ADMIN).body(Map.of("queue", "emails", "type", "t", "delaySeconds", 3600))
                .post("/jobs").then().statusCode(201).extract().path("id");
        Map<String, Set<Role>> keyRoles = Map.of(
                PRODUCER, EnumSet.of(Role.PRODUCER),
                WORKER, EnumSet.of(Role.WORKER),
                BOTH, EnumSet.of(Role.PRODUCER, Role.WORKER));
        int checked = 0;
        for (String jobId : List.of(existing, "987654321")) {
            for (Endpoint e : endpoints(jobId)) {
                // no key, a malformed header, an unknown key: 401 with a Bearer challenge
                for (String bad : new String[] {null, "rp_not-a-configured-key"}) {
                    Response r = e.call(bad);
                    assertEquals(401, r.statusCode(), e.method() + " " + e.path() + " without a valid key");
                    assertEquals("application/problem+json", r.contentType());
                    assertTrue(r.header("WWW-Authenticate").startsWith("Bearer"));
                    checked++;
                }
                Response basic = as(null).header("Authorization", "Basic YTpi").body(e.body() == null ? "" : e.body())
                        .request(e.method(), e.path());
                assertEquals(401, basic.statusCode());
                for (var kr : keyRoles.entrySet()) {
                    boolean allowed = kr.getValue().stream().anyMatch(e.roles()::contains);
                    Response r = e.call(kr.getKey());
                    if (allowed) {
                        assertFalse(r.statusCode() == 401 || r.statusCode() == 403,
                                e.method() + " " + e.path() + " should be allowed for " + kr.getValue() + ": " + r.asString());
                    } else {
                        assertEquals(403, r.statusCode(), e.method() + " " + e.path() + " must be refused to " + kr.getValue());
                        assertEquals("application/problem+json", r.contentType());
                    }
                    checked++;
                }
            }
        }
        // admin may do everything (run last: it deletes and cancels)
        for (Endpoint e : endpoints(existing)) {
            Response r = e.call(ADMIN);
            assertFalse(r.statusCode() == 401 || r.statusCode() == 403, e.method() + " " + e.path() + " as admin");
            checked++;
        }
        assertTrue(checked > 150);
    }

    @Test
    void aValidKeyWithoutBearerGetsAHint() {
        for (String header : new String[] {WORKER, "Token " + WORKER, "  " + WORKER + " "}) {
            Response r = as(null).header("Authorization", header).body(Map.of("workerId", "w")).post("/claim");
            assertEquals(401, r.statusCode(), header);
            assertTrue(r.jsonPath().getString("detail").contains("put 'Bearer ' before the key"), r.asString());
        }
        for (String header : new String[] {"rp_not-a-configured-key", "Basic YTpi", "Token rp_nope"}) {
            Response r = as(null).header("Authorization", header).body(Map.of("workerId", "w")).post("/claim");
            assertEquals(401, r.statusCode(), header);
            assertEquals("The Authorization header must read 'Bearer <key>'.", r.jsonPath().getString("detail"));
        }
        Response wrong = as("rp_not-a-configured-key").body(Map.of("workerId", "w")).post("/claim");
        assertEquals("The API key was not accepted.", wrong.jsonPath().getString("detail"));
    }

    /** A 403 for a missing role says which role the operation needs and which the key has. */
    @Test
    void aRoleRefusalNamesTheRoleNeeded() {
        Response claim = as(PRODUCER).body(Map.of("workerId", "w")).post("/claim");
        assertEquals(403, claim.statusCode());
        assertEquals("This needs the worker (or admin) role; the key 'prod' has producer.",
                claim.jsonPath().getString("detail"));
        Response queues = as(BOTH).get("/queues");
        assertEquals(403, queues.statusCode());
        assertTrue(queues.jsonPath().getString("detail").startsWith("This needs the admin role; the key '"),
                queues.asString());
        assertTrue(queues.jsonPath().getString("detail").endsWith(" has producer+worker."), queues.asString());
    }

    @Test
    void refusalsDoNotRevealWhetherAJobExists() {
        String existing = as(ADMIN).body(Map.of("queue", "emails", "type", "t")).post("/jobs")
                .then().statusCode(201).extract().path("id");
        for (String key : new String[] {null, WORKER}) {
            Response a = as(key).get("/jobs/" + existing);
            Response b = as(key).get("/jobs/987654321");
            assertEquals(a.statusCode(), b.statusCode());
            assertEquals(a.jsonPath().getString("detail"), b.jsonPath().getString("detail"));
        }
        Response a = as(PRODUCER).post("/jobs/" + existing + "/cancel");
        Response b = as(PRODUCER).post("/jobs/987654321/cancel");
        assertEquals(403, a.statusCode());
        assertEquals(a.statusCode(), b.statusCode());
        assertEquals(a.jsonPath().getString("detail"), b.jsonPath().getString("detail"));
    }

    @Test
    void queueScopesBindWorkersAndProducers() {
        String email = as(ADMIN).body(Map.of("queue", "emails", "type", "t")).post("/jobs").then().extract().path("id");
        String other = as(ADMIN).body(Map.of("queue", "billing", "type", "t", "priority", 100)).post("/jobs")
                .then().extract().path("id");
        // a scoped worker cannot name another queue, and by default claims only from its own
        as(SCOPED_WORKER).body(Map.of("workerId", "s", "queues", List.of("billing"))).post("/claim")
                .then().statusCode(403).contentType("application/problem+json");
        as(SCOPED_WORKER).body(Map.of("workerId", "s", "queues", List.of("emails", "billing"))).post("/claim")
                .then().statusCode(403);
        List<String> got = as(SCOPED_WORKER).body(Map.of("workerId", "s", "limit", 10)).post("/claim")
                .then().statusCode(200).extract().jsonPath().getList("jobs.id");
        assertEquals(List.of(email), got);
        given().header("Authorization", "Bearer " + ADMIN).get("/jobs/" + other).then().body("status", equalTo("PENDING"));

        // a scoped producer enqueues only to its queue and cannot see other queues' jobs
        as(SCOPED_PRODUCER).body(Map.of("queue", "billing", "type", "t")).post("/jobs").then().statusCode(403);
        as(SCOPED_PRODUCER).body(Map.of("queue", "emails", "type", "t")).post("/jobs").then().statusCode(201);
        as(SCOPED_PRODUCER).get("/jobs/" + other).then().statusCode(404);
        as(SCOPED_PRODUCER).get("/jobs/" + email).then().statusCode(200);
        var batch = as(SCOPED_PRODUCER).body(Map.of("jobs", List.of(Map.of("queue", "emails", "type", "t"),
                Map.of("queue", "billing", "type", "t")))).post("/jobs/batch").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(201, 403), batch.getList("results.status"));
    }

    /**
     * A worker key scoped to emails and sms, given the lease id of a billing job (leaked, or
     * guessed), can do nothing with it: every lease call answers exactly as for a job that does
     * not exist, and the job and its payload stay untouched. Within its scope a wrong lease is a
     * 409 as always; outside it a made-up lease cannot tell an existing job from a missing one.
     */
    @Test
    void aScopedKeyCannotUseALeaseOfAnotherQueue() {
        String billing = as(PRODUCER).body(Map.of("queue", "billing", "type", "t", "payload", Map.of("secret", 42)))
                .post("/jobs").then().statusCode(201).extract().path("id");
        Response claimed = as(WORKER).body(Map.of("workerId", "w", "queues", List.of("billing"))).post("/claim");
        String lease = claimed.path("jobs[0].leaseId");
        assertEquals(billing, claimed.path("jobs[0].id"));
        String before = TestDb.snapshot();
        String missing = "999999999";
        Map<String, Object> withLease = Map.of("leaseId", lease);
        for (String job : List.of(billing, missing)) {
            for (String call : List.of("heartbeat", "complete", "fail", "release")) {
                Response r = as(SCOPED_WORKER).body(withLease).post("/jobs/" + job + "/" + call);
                assertEquals(404, r.statusCode(), call + " " + job + ": " + r.asString());
                assertFalse(r.asString().contains("secret"), "no payload of another queue: " + r.asString());
            }
            // a made-up lease: the same answer for an existing job and a missing one
            Response madeUp = as(SCOPED_WORKER).body(Map.of("leaseId", "00000000-0000-4000-8000-000000000000"))
                    .post("/jobs/" + job + "/heartbeat");
            assertEquals(404, madeUp.statusCode(), madeUp.asString());
        }
        // the answers for the existing billing job and the missing one differ only in the id
        String forBilling = as(SCOPED_WORKER).body(withLease).post("/jobs/" + billing + "/complete").asString();
        String forMissing = as(SCOPED_WORKER).body(withLease).post("/jobs/" + missing + "/complete").asString();
        assertEquals(forMissing.replace(missing, "N"), forBilling.replace(billing, "N"));
        // every batch lease call and ack-and-claim answer the item as missing, and leave the job alone
        for (String call : List.of("complete", "heartbeat", "fail", "release")) {
            Response batch = as(SCOPED_WORKER).body(Map.of("items", List.of(Map.of("id", billing, "leaseId", lease),
                    Map.of("id", missing, "leaseId", lease)))).post("/jobs/" + call);
            assertEquals(200, batch.statusCode(), call + ": " + batch.asString());
            assertEquals(List.of(404, 404), batch.path("results.status"), call + ": " + batch.asString());
            assertFalse(batch.asString().contains("secret"), "no payload of another queue: " + batch.asString());
        }
        Response ack = as(SCOPED_WORKER).body(Map.of("workerId", "s", "queues", List.of("emails"),
                "ack", List.of(Map.of("id", billing, "leaseId", lease)))).post("/claim");
        assertEquals(200, ack.statusCode(), ack.asString());
        assertEquals(404, (int) ack.path("acks[0].status"), ack.asString());
        assertEquals(before, TestDb.snapshot(), "nothing changed");
        // the key of every queue still works that lease
        as(WORKER).body(withLease).post("/jobs/" + billing + "/complete").then().statusCode(200);
        // within the scope, a wrong lease is a conflict as always
        String email = as(PRODUCER).body(Map.of("queue", "emails", "type", "t")).post("/jobs").then().statusCode(201)
                .extract().path("id");
        as(SCOPED_WORKER).body(Map.of("workerId", "s", "queues", List.of("emails"))).post("/claim").then().statusCode(200);
        as(SCOPED_WORKER).body(Map.of("leaseId", "00000000-0000-4000-8000-000000000000"))
                .post("/jobs/" + email + "/heartbeat").then().statusCode(409);
    }

    @Test
    void jobsRecordWhichKeyCreatedAndLastChangedThem() {
        String id = as(PRODUCER).body(Map.of("queue", "audit", "type", "t")).post("/jobs")
                .then().statusCode(201).body("createdBy", equalTo("prod")).extract().path("id");
        var claim = as(WORKER).body(Map.of("workerId", "w", "queues", List.of("audit"))).post("/claim")
                .then().statusCode(200).extract().jsonPath();
        assertEquals("work", claim.getString("jobs[0].modifiedBy"));
        as(BOTH).body(Map.of("leaseId", claim.getString("jobs[0].leaseId"))).post("/jobs/" + id + "/complete")
                .then().statusCode(200).body("modifiedBy", equalTo("both")).body("createdBy", equalTo("prod"));
    }

    @Test
    void meNamesTheKeyItsRolesAndScopeButNeverTheKey() {
        Response me = as(SCOPED_WORKER).get("/me");
        me.then().statusCode(200)
                .body("name", equalTo("scoped"))
                .body("roles", equalTo(List.of("worker")))
                .body("queues", equalTo(List.of("emails", "sms")))
                .body("authEnabled", equalTo(true));
        as(BOTH).get("/me").then().statusCode(200).body("roles", equalTo(List.of("producer", "worker")))
                .body("queues", equalTo(null));
        as(ADMIN).get("/me").then().statusCode(200).body("name", equalTo("admin"))
                .body("roles", equalTo(List.of("admin")));
        for (String key : ALL_KEYS) {
            String body = as(key).get("/me").asString();
            assertFalse(body.contains(key.substring(3, 20)), "the key is echoed: " + body);
            assertFalse(body.contains(ApiKeys.digestHex(key)), "the digest is echoed: " + body);
        }
        as(null).get("/me").then().statusCode(401);
        as("rp_not-a-configured-key").get("/me").then().statusCode(401);
    }

    @Test
    void healthMetricsAndOpenApiStayOpen() {
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/health/live").then().statusCode(200);
        // the dashboard's files load without a key; every API call they make needs one
        given().get("/ui/").then().statusCode(200);
        given().get("/ui/app.js").then().statusCode(200);
        String spec = given().get("/q/openapi?format=json").then().statusCode(200).extract().asString();
        assertTrue(spec.contains("bearer"), "the OpenAPI document declares the bearer scheme for Swagger UI");
    }

    @Test
    void keysNeverAppearInLogsOrResponses() {
        for (String key : ALL_KEYS) {
            as(key).body(Map.of("queue", "emails", "type", "t")).post("/jobs");
            as(key).get("/jobs/1");
            as(key + "x").get("/queues");
        }
        roleByEndpointMatrix();
        List<String> everything = new ArrayList<>(LOGS);
        everything.addAll(io.readpast.testsupport.TestDb.artifactLog());   // the packaged artifact's own log, in an IT
        synchronized (BODIES) {
            everything.addAll(BODIES);
        }
        assertNotEquals(0, everything.size());
        for (String text : everything) {
            for (String key : ALL_KEYS) {
                assertFalse(text.contains(key), "a key leaked: " + text);
                assertFalse(text.contains(key.substring(3, 20)), "part of a key leaked: " + text);
            }
        }
    }
}
