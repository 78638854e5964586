package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Jobs;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.store.WebhookRow;
import io.readpast.webhook.WebhookSender;
import io.readpast.webhook.WebhookSignature;
import io.readpast.webhook.Webhooks;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Completion webhooks end to end: a local receiver on 127.0.0.1, the outbox written with the
 * job's change, signed POSTs, retries with the same delivery id, the dead state, a sender that
 * dies mid-send, and several senders racing. The test profile sets a secret, 3 attempts, quick
 * backoff, a 1 s timeout and a 3 s lease.
 */
@QuarkusTest
class WebhookTest {

    private static final byte[] SECRET = "test-webhook-secret".getBytes(StandardCharsets.UTF_8);
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** In process only: null against the packaged artifact (the tests that need it are disabled there). */
    Webhooks webhooks = TestDb.bean(Webhooks.class);


    WebhookReceiver receiver;

    @BeforeEach
    void start() throws Exception {
        TestDb.clean();
        receiver = new WebhookReceiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
    }

    static String enqueue(String queue, String webhookUrl) {
        Map<String, Object> body = new HashMap<>(Map.of("queue", queue, "type", "t", "payload", Map.of("k", "v")));
        if (webhookUrl != null) {
            body.put("webhookUrl", webhookUrl);
        }
        return Jobs.enqueue(body);
    }

    /** Claims the one job of a queue and completes it. */
    static String claimAndComplete(String queue) {
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of(queue)));
        String id = c.getString("jobs[0].id");
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "result", Map.of("ok", true)))
                .when().post("/jobs/" + id + "/complete").then().statusCode(200);
        return id;
    }

    static void assertSigned(WebhookReceiver.Received r) throws Exception {
        String header = r.header(WebhookSignature.HEADER);
        assertNotNull(header, "signature header");
        String[] parts = header.split(",");
        assertTrue(parts[0].startsWith("t=") && parts[1].startsWith("v1="), header);
        long t = Long.parseLong(parts[0].substring(2));
        assertTrue(Math.abs(Instant.now().getEpochSecond() - t) < 120, "timestamp is now-ish");
        byte[] expected = WebhookSignature.hmac(SECRET, t, r.body()).getBytes(StandardCharsets.US_ASCII);
        assertTrue(MessageDigest.isEqual(expected, parts[1].substring(3).getBytes(StandardCharsets.US_ASCII)),
                "the signature verifies with the shared secret over the raw body");
        // and it is not a signature of something else
        byte[] tampered = r.body().clone();
        tampered[tampered.length - 2] ^= 1;
        assertTrue(!WebhookSignature.hmac(SECRET, t, tampered).equals(parts[1].substring(3)));
    }

    @Test
    void aCompletedJobIsPostedSignedToItsWebhook() throws Exception {
        String url = receiver.url("/hook");
        String id = enqueue("wh", url);
        given().when().get("/jobs/" + id).then().statusCode(200).body("webhookUrl", equalTo(url));
        claimAndComplete("wh");
        await().atMost(WAIT).until(() -> receiver.received("/hook").size() == 1);
        WebhookReceiver.Received r = receiver.received("/hook").get(0);
        assertEquals("job.succeeded", r.header("Readpast-Event"));
        assertEquals("1", r.header("Readpast-Attempt"));
        assertTrue(r.header("Content-Type").startsWith("application/json"));
        String delivery = r.header("Readpast-Delivery");
        assertTrue(delivery.matches("[0-9a-f-]{36}"), delivery);
        assertSigned(r);
        JsonNode body = r.json();
        assertEquals(delivery, body.path("id").asText());
        assertEquals("job.succeeded", body.path("event").asText());
        assertEquals(id, body.path("job").path("id").asText());
        assertEquals("SUCCEEDED", body.path("job").path("status").asText());
        assertTrue(body.path("job").path("result").path("ok").asBoolean());
        assertEquals("v", body.path("job").path("payload").path("k").asText());
        assertTrue(body.path("job").path("leaseId").isMissingNode(), "no lease id in callbacks");

        await().atMost(WAIT).until(() -> "DELIVERED".equals(given().when().get("/webhooks/deliveries/" + delivery)
                .then().statusCode(200).extract().path("status")));
        given().when().get("/webhooks/deliveries/" + delivery).then().statusCode(200)
                .body("jobId", equalTo(id)).body("event", equalTo("job.succeeded")).body("attempt", equalTo(1))
                .body("lastStatus", equalTo(200)).body("deliveredAt", notNullValue()).body("url", equalTo(url));
        given().when().get("/webhooks/deliveries?status=DELIVERED").then().statusCode(200)
                .body("deliveries", hasSize(1)).body("deliveries[0].id", equalTo(delivery));
        assertEquals(1, receiver.received("/hook").size(), "delivered once");
    }

    @Test
    void theQueueWebhookReportsDeadJobsAndJobsWithoutOneAreNotPosted() {
        String url = receiver.url("/queue-hook");
        given().contentType(ContentType.JSON).body(Map.of("webhookUrl", url)).when().put("/queues/wq")
                .then().statusCode(200).body("webhookUrl", equalTo(url));
        String own = receiver.url("/own");
        String dead = enqueue("wq", null);
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("wq")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", "boom",
                "retryable", false)).when().post("/jobs/" + dead + "/fail").then().statusCode(200).body("status", equalTo("DEAD"));
        String withOwn = enqueue("wq", own);
        claimAndComplete("wq");
        enqueue("plain", null);
        claimAndComplete("plain");
        // a retried failure and a cancel are not events
        String retried = enqueue("wq", null);
        JsonPath c2 = Jobs.claim(Map.of("workerId", "w", "queues", List.of("wq")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c2.getString("jobs[0].leaseId"), "error", "later"))
                .when().post("/jobs/" + retried + "/fail").then().statusCode(200).body("status", equalTo("PENDING"));
        given().when().post("/jobs/" + retried + "/cancel").then().statusCode(200);

        await().atMost(WAIT).until(() -> receiver.received("/queue-hook").size() + receiver.received("/own").size() == 2);
        WebhookReceiver.Received deadHook = receiver.received("/queue-hook").get(0);
        assertEquals("job.dead", deadHook.header("Readpast-Event"));
        assertEquals(dead, deadHook.json().path("job").path("id").asText());
        assertEquals("DEAD", deadHook.json().path("job").path("status").asText());
        assertEquals("boom", deadHook.json().path("job").path("lastError").asText());
        WebhookReceiver.Received ownHook = receiver.received("/own").get(0);
        assertEquals(withOwn, ownHook.json().path("job").path("id").asText(), "the job's own URL wins over the queue's");
        assertEquals(2, TestDb.count("SELECT count(*) FROM readpast_webhook"), "one delivery per event, none for others");
    }

    @Test
    void failedAttemptsAreRetriedWithTheSameDeliveryId() {
        AtomicInteger calls = new AtomicInteger();
        receiver.answer(r -> !r.path().equals("/flaky") ? 200 : switch (calls.incrementAndGet()) {
            case 1 -> 500;
            case 2 -> 503;
            default -> 204;
        });
        enqueue("retry", receiver.url("/flaky"));
        claimAndComplete("retry");
        await().atMost(WAIT).until(() -> TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 2") == 1);
        List<WebhookReceiver.Received> got = receiver.received("/flaky");
        assertEquals(3, got.size());
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < got.size(); i++) {
            ids.add(got.get(i).header("Readpast-Delivery"));
            assertEquals(Integer.toString(i + 1), got.get(i).header("Readpast-Attempt"));
        }
        assertEquals(1, ids.size(), "every attempt carries the same delivery id");
        given().when().get("/webhooks/deliveries/" + ids.iterator().next()).then().statusCode(200)
                .body("status", equalTo("DELIVERED")).body("attempt", equalTo(3)).body("lastStatus", equalTo(204));
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it drives the in-process webhook senders")
    void aDeliveryGoesDeadAfterItsAttemptsAndCanBeRetried() {
        receiver.answer(r -> r.path().equals("/down") ? 500 : 200);
        enqueue("dq", receiver.url("/down"));
        claimAndComplete("dq");
        await().atMost(WAIT).until(() -> TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 3") == 1);
        assertEquals(3, receiver.received("/down").size(), "max-attempts (3 in tests), then DEAD");
        String delivery = given().when().get("/webhooks/deliveries?status=DEAD").then().statusCode(200)
                .body("deliveries", hasSize(1)).body("deliveries[0].lastError", equalTo("HTTP 500"))
                .body("deliveries[0].lastStatus", equalTo(500)).body("deliveries[0].nextAttemptAt", equalTo(null))
                .extract().path("deliveries[0].id");
        // dead stays dead: nothing more is sent
        webhooks.newSender().runOnce();
        assertEquals(3, receiver.received("/down").size());

        receiver.answer(r -> 200);
        given().when().post("/webhooks/deliveries/" + delivery + "/retry").then().statusCode(200)
                .body("status", equalTo("PENDING")).body("attempt", equalTo(0)).body("id", equalTo(delivery));
        await().atMost(WAIT).until(() -> TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 2") == 1);
        assertEquals(delivery, receiver.received("/down").get(3).header("Readpast-Delivery"));
        given().when().post("/webhooks/deliveries/" + delivery + "/retry").then().statusCode(409)
                .contentType("application/problem+json");
    }

    /**
     * Ports no HTTP client can use are refused where the URL is given; a delivery whose URL the
     * client refuses all the same (stored before these checks) is an attempt like any other: it
     * is recorded and ends DEAD, never re-sent past its attempts.
     */
    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it drives the in-process webhook senders")
    void impossiblePortsAreRefusedAndAnUnsendableDeliveryEndsDead() {
        for (String url : List.of("http://127.0.0.1:0/h", "http://127.0.0.1:99999/h", "http://127.0.0.1:65536/h")) {
            given().contentType(ContentType.JSON).body(Map.of("queue", "ports", "type", "t", "webhookUrl", url))
                    .when().post("/jobs").then().statusCode(400).body("detail", containsString("port"));
            given().contentType(ContentType.JSON).body(Map.of("webhookUrl", url))
                    .when().put("/queues/ports").then().statusCode(400).body("detail", containsString("port"));
        }
        TestDb.exec("INSERT INTO readpast_webhook (job_id, queue, event, url) VALUES (1, 'ports', 'job.succeeded', "
                + "'http://127.0.0.1:99999/h')");
        for (int i = 0; i < 6; i++) {
            webhooks.newSender().runOnce();
        }
        await().atMost(WAIT).until(() -> TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 3") == 1);
        given().when().get("/webhooks/deliveries?status=DEAD").then().statusCode(200)
                .body("deliveries", hasSize(1))
                .body("deliveries[0].lastError", containsString("HTTP client"))
                .body("deliveries[0].attempt", equalTo(1));
    }

    @Test
    void gone410IsDeadAtOnce() {
        receiver.answer(r -> r.path().equals("/gone") ? 410 : 200);
        enqueue("gq", receiver.url("/gone"));
        claimAndComplete("gq");
        await().atMost(WAIT).until(() -> TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 3") == 1);
        assertEquals(1, receiver.received("/gone").size());
    }

    /**
     * A sender that leased deliveries and died before sending them: nothing is lost, the rows
     * are sent once their lease runs out. A sender whose receiver took the POST but whose answer
     * never came back (timeout) sends again with the same delivery id: at least once, deduplicable.
     */
    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it drives the in-process webhook senders")
    void aSenderThatDiesMidSendIsReplacedAndRepeatsCarryTheSameId() throws Exception {
        // 1. a sender leased a delivery (attempt 1) and died before sending it: the row stays
        //    SENDING under its lease, untouched by other senders, until the lease runs out
        String job = enqueue("crash", null);
        claimAndComplete("crash");
        Object lease = TestDb.engine() == io.readpast.config.Engine.SQLSERVER
                ? java.util.UUID.randomUUID().toString() : java.util.UUID.randomUUID();
        Instant expiry = TestDb.dbNow().plusSeconds(2);
        TestDb.exec("INSERT INTO readpast_webhook (job_id, queue, event, url, status, attempt, due_at, lease_id) "
                + "VALUES (?, 'crash', 'job.succeeded', ?, 1, 1, ?, ?)", Long.parseLong(job),
                receiver.url("/after-crash"), TestDb.time(expiry), lease);
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 1"));
        webhooks.newSender().runOnce();
        assertEquals(0, receiver.received("/after-crash").size(), "nobody sends a delivery another sender holds");
        // once the lease ran out, any sender's next look takes it over (here: this instance's, woken
        // as another instance's periodic look would find it)
        await().atMost(WAIT).until(() -> !TestDb.dbNow().isBefore(expiry));
        webhooks.nudge();
        await().atMost(WAIT).until(() -> receiver.received("/after-crash").size() == 1);
        WebhookReceiver.Received after = receiver.received("/after-crash").get(0);
        assertEquals("2", after.header("Readpast-Attempt"), "the lost attempt counted");
        assertEquals(job, after.json().path("job").path("id").asText());
        await().atMost(WAIT).until(() -> TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 2") == 1);

        // 2. the receiver got the POST but the broker never saw the answer
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        receiver.answer(r -> {
            if (r.path().equals("/slow") && calls.incrementAndGet() == 1) {
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 200;
        });
        enqueue("slow", receiver.url("/slow"));
        claimAndComplete("slow");
        await().atMost(WAIT).until(() -> receiver.received("/slow").size() >= 2);
        release.countDown();
        await().atMost(WAIT).until(() -> TestDb.count(
                "SELECT count(*) FROM readpast_webhook WHERE url LIKE '%/slow' AND status = 2") == 1);
        List<WebhookReceiver.Received> slow = receiver.received("/slow");
        assertEquals(slow.get(0).header("Readpast-Delivery"), slow.get(1).header("Readpast-Delivery"),
                "the repeat carries the same delivery id");
        assertTrue(TestDb.count("SELECT count(*) FROM readpast_webhook WHERE url LIKE '%/slow' AND last_status = 200") == 1);
    }

    /** Several senders (as several instances would run) race over many deliveries: each is POSTed once. */
    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it drives the in-process webhook senders")
    void racingSendersDeliverEachOnce() throws Exception {
        int jobs = 40;
        String url = receiver.url("/race");
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(Map.of("queue", "race-wh", "type", "t", "webhookUrl", url));
        }
        given().contentType(ContentType.JSON).body(Map.of("jobs", batch)).when().post("/jobs/batch").then().statusCode(200)
                .body("succeeded", equalTo(jobs));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("race-wh"), "limit", jobs));
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            items.add(Map.of("id", c.getString("jobs[" + i + "].id"), "leaseId", c.getString("jobs[" + i + "].leaseId")));
        }
        // a batch ack writes one delivery per job, in the same statement
        given().contentType(ContentType.JSON).body(Map.of("items", items)).when().post("/jobs/complete").then()
                .statusCode(200).body("succeeded", equalTo(jobs));
        List<WebhookSender> senders = List.of(webhooks.newSender(), webhooks.newSender(), webhooks.newSender());
        ExecutorService pool = Executors.newFixedThreadPool(senders.size());
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (WebhookSender s : senders) {
                runs.add(pool.submit(() -> {
                    long deadline = System.nanoTime() + WAIT.toNanos();
                    while (System.nanoTime() < deadline
                            && TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status <> 2") > 0) {
                        s.runOnce();
                    }
                }));
            }
            for (Future<?> f : runs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
            senders.forEach(WebhookSender::close);
        }
        assertEquals(jobs, TestDb.count("SELECT count(*) FROM readpast_webhook WHERE status = 2"));
        List<WebhookReceiver.Received> got = receiver.received("/race");
        Set<String> ids = new HashSet<>();
        Set<String> jobIds = new HashSet<>();
        for (WebhookReceiver.Received r : got) {
            ids.add(r.header("Readpast-Delivery"));
            jobIds.add(r.json().path("job").path("id").asText());
        }
        assertEquals(jobs, jobIds.size(), "every job reported");
        assertEquals(jobs, got.size(), "no delivery POSTed twice: " + got.size() + " POSTs for " + ids.size() + " ids");
    }

    /** Jobs acknowledged with the next claim (POST /claim with "ack") report their webhooks too. */
    @Test
    void jobsAcknowledgedWithTheNextClaimArePosted() {
        String first = enqueue("ack-wh", receiver.url("/acked"));
        String second = enqueue("ack-wh", receiver.url("/acked"));
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("ack-wh"), "limit", 1));
        given().contentType(ContentType.JSON).body(Map.of("workerId", "w", "queues", List.of("ack-wh"), "limit", 1,
                "ack", List.of(Map.of("id", c.getString("jobs[0].id"), "leaseId", c.getString("jobs[0].leaseId")))))
                .when().post("/claim").then().statusCode(200).body("jobs", hasSize(1));
        await().atMost(WAIT).until(() -> receiver.received("/acked").size() == 1);
        assertEquals(c.getString("jobs[0].id"), receiver.received("/acked").get(0).json().path("job").path("id").asText());
        assertTrue(List.of(first, second).contains(c.getString("jobs[0].id")));
    }

    @Test
    void aRefusedCompletionWritesNoDelivery() {
        String id = enqueue("nope", receiver.url("/never"));
        Jobs.claim(Map.of("workerId", "w", "queues", List.of("nope")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", "00000000-0000-4000-8000-000000000000"))
                .when().post("/jobs/" + id + "/complete").then().statusCode(409);
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_webhook"));
    }

    @Test
    void badWebhookInputGetsA400AndChangesNothing() {
        given().contentType(ContentType.JSON).body(Map.of("webhookUrl", receiver.url("/q"))).when().put("/queues/bad-wh")
                .then().statusCode(200);
        String before = TestDb.snapshot();
        List<Object> urls = List.of("", "ftp://127.0.0.1/x", "http://", "/relative", "127.0.0.1/x",
                "http://user:pw@127.0.0.1/x", "http://127.0.0.1/x#frag", "javascript:alert(1)", "http://exa mple.com/",
                "http://127.0.0.1/a\u0000b", "http://127.0.0.1/" + "a".repeat(2000), "http://[::1/x", 5, true,
                List.of("http://127.0.0.1/"), Map.of("url", "http://127.0.0.1/"));
        for (Object url : urls) {
            Map<String, Object> job = new HashMap<>(Map.of("queue", "bad-wh", "type", "t"));
            job.put("webhookUrl", url);
            given().contentType(ContentType.JSON).body(job).when().post("/jobs")
                    .then().statusCode(400).contentType("application/problem+json").body("detail", notNullValue());
            given().contentType(ContentType.JSON).body(Map.of("webhookUrl", url)).when().put("/queues/bad-wh")
                    .then().statusCode(400).contentType("application/problem+json");
        }
        for (String path : List.of("/webhooks/deliveries?status=LOST", "/webhooks/deliveries?limit=0",
                "/webhooks/deliveries?limit=501", "/webhooks/deliveries?after=x", "/webhooks/deliveries/not-a-uuid",
                "/webhooks/deliveries/1")) {
            given().when().get(path).then().statusCode(400).contentType("application/problem+json");
        }
        given().when().post("/webhooks/deliveries/abc/retry").then().statusCode(400);
        given().when().get("/webhooks/deliveries/00000000-0000-4000-8000-000000000000").then().statusCode(404)
                .contentType("application/problem+json");
        given().when().post("/webhooks/deliveries/00000000-0000-4000-8000-000000000000/retry").then().statusCode(404);
        given().when().delete("/webhooks/deliveries/00000000-0000-4000-8000-000000000000").then().statusCode(405);
        assertEquals(before, TestDb.snapshot(), "the database is unchanged");
    }
}
