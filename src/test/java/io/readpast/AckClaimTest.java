package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Http;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.core.Wakeups;
import io.readpast.store.Database;
import io.readpast.store.jdbc.JdbcStores;
import io.readpast.store.Stmt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Ack and claim: POST /claim with "ack" completes a batch and leases the next, one request, one transaction. */
@QuarkusTest
class AckClaimTest {

    @TestHTTPResource("/")
    URI base;

    /** In process only: null against the packaged artifact (the tests that need it are disabled there). */
    Database database = TestDb.bean(Database.class);

    /** In process only: null against the packaged artifact (the tests that need it are disabled there). */
    Wakeups wakeups = TestDb.bean(Wakeups.class);

    Http http;
    JdbcStores store;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
        // in-process only (the integration tests run the broker apart, and skip what needs it)
        store = database == null ? null : database.start();
    }

    private void enqueue(String queue, int n) {
        for (int i = 0; i < n; i++) {
            assertEquals(201, http.post("/jobs", Map.of("queue", queue, "type", "t", "payload", Map.of("i", i))).status());
        }
    }

    private JsonNode claim(Map<String, Object> body) {
        Http.Reply r = http.post("/claim", body);
        assertEquals(200, r.status(), () -> String.valueOf(r.body()));
        return r.body();
    }

    private static Map<String, Object> body(String queue, int limit, List<?> ack) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("workerId", "ac");
        b.put("queues", List.of(queue));
        b.put("limit", limit);
        if (ack != null) {
            b.put("ack", ack);
        }
        return b;
    }

    private static List<Map<String, Object>> acksFor(JsonNode jobs) {
        List<Map<String, Object>> out = new ArrayList<>();
        jobs.forEach(j -> out.add(Map.of("id", j.get("id").asText(), "leaseId", j.get("leaseId").asText())));
        return out;
    }

    private String status(String id) {
        return http.send("GET", "/jobs/" + id, null, Duration.ofSeconds(10)).body().get("status").asText();
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process statement counters or wake-ups")
    void oneRequestCompletesTheBatchAndLeasesTheNextInOneStatement() {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish returns JSON string members still escaped (OPENJSON defect): batch payloads and results");
        enqueue("ac-q", 4);
        JsonNode first = claim(body("ac-q", 2, null)).get("jobs");
        assertEquals(2, first.size());
        List<Map<String, Object>> acks = new ArrayList<>(acksFor(first));
        acks.set(0, Map.of("id", first.get(0).get("id").asText(), "leaseId", first.get(0).get("leaseId").asText(),
                "result", Map.of("ok", true)));
        long ackClaims = store.statementsExecuted(Stmt.JOB_ACK_CLAIM);
        long completes = store.statementsExecuted(Stmt.JOB_COMPLETE_MANY);
        long claims = store.statementsExecuted(Stmt.JOB_CLAIM);

        JsonNode r = claim(body("ac-q", 2, acks));

        assertEquals(2, r.get("acks").size());
        for (int i = 0; i < 2; i++) {
            assertEquals(i, r.get("acks").get(i).get("index").asInt());
            assertEquals(200, r.get("acks").get(i).get("status").asInt());
            assertEquals(first.get(i).get("id").asText(), r.get("acks").get(i).get("id").asText());
            assertEquals("SUCCEEDED", status(first.get(i).get("id").asText()));
        }
        JsonNode done = http.send("GET", "/jobs/" + first.get(0).get("id").asText(), null, Duration.ofSeconds(10)).body();
        assertTrue(done.get("result").get("ok").asBoolean(), "the ack's result is stored");
        JsonNode next = r.get("jobs");
        assertEquals(2, next.size());
        Set<String> ids = new HashSet<>();
        next.forEach(j -> {
            ids.add(j.get("id").asText());
            assertEquals("LEASED", j.get("status").asText());
            assertFalse(j.get("leaseId").asText().isEmpty());
        });
        first.forEach(j -> assertFalse(ids.contains(j.get("id").asText()), "new jobs, not the acked ones"));
        assertEquals(ackClaims + 1, store.statementsExecuted(Stmt.JOB_ACK_CLAIM), "one statement");
        assertEquals(completes, store.statementsExecuted(Stmt.JOB_COMPLETE_MANY));
        assertEquals(claims, store.statementsExecuted(Stmt.JOB_CLAIM));

        // the last batch: acked, nothing more to claim
        JsonNode last = claim(body("ac-q", 2, acksFor(next)));
        assertEquals(0, last.get("jobs").size());
        assertEquals(List.of(200, 200), statuses(last.get("acks")));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job"));
        assertEquals(4, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE status = 3"));
    }

    @Test
    void eachAckIsAnsweredOnItsOwnAndARefusedAckDoesNotStopTheClaim() {
        enqueue("ac-items", 3);
        JsonNode held = claim(body("ac-items", 2, null)).get("jobs");
        String id0 = held.get(0).get("id").asText();
        String lease0 = held.get(0).get("leaseId").asText();
        String id1 = held.get(1).get("id").asText();
        List<Object> acks = new ArrayList<>();
        acks.add(Map.of("id", id0, "leaseId", lease0));
        acks.add(Map.of("id", id1, "leaseId", "00000000-0000-4000-8000-000000000000"));  // not its lease
        acks.add(Map.of("id", "99999999", "leaseId", lease0));                           // no such job
        acks.add(Map.of("id", id1, "leaseId", "not-a-uuid"));                             // invalid
        acks.add("not an object");
        acks.add(Map.of("id", id0, "leaseId", lease0));                                   // a repeat: same answer
        JsonNode r = claim(body("ac-items", 5, acks));
        assertEquals(List.of(200, 409, 404, 400, 400, 200), statuses(r.get("acks")));
        assertNull(r.get("acks").get(3).get("id"), "an invalid item has no id");
        assertTrue(r.get("acks").get(1).get("error").get("type").asText().endsWith("lease-conflict"));
        assertEquals(1, r.get("jobs").size(), "the third job was leased all the same");
        assertEquals("SUCCEEDED", status(id0));
        assertEquals("LEASED", status(id1));

        // a repeated ack of a job completed earlier under that lease is answered 200 again
        JsonNode again = claim(body("ac-items", 1, List.of(Map.of("id", id0, "leaseId", lease0))));
        assertEquals(List.of(200), statuses(again.get("acks")));
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process statement counters or wake-ups")
    void ackingFreesTheSlotOfACappedQueueForTheSameRequest() {
        assertEquals(200, http.send("PUT", "/queues/ac-capped", Map.of("maxWorkers", 1), Duration.ofSeconds(10)).status());
        enqueue("ac-capped", 3);
        JsonNode one = claim(body("ac-capped", 5, null)).get("jobs");
        assertEquals(1, one.size(), "the cap");
        long locks = store.statementsExecuted(Stmt.QUEUE_LOCK_CAPPED);
        for (int round = 0; round < 2; round++) {
            JsonNode r = claim(body("ac-capped", 5, acksFor(one)));
            assertEquals(List.of(200), statuses(r.get("acks")));
            assertEquals(1, r.get("jobs").size(), "the acked job's slot went to the next job, and only it");
            assertTrue(TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'ac-capped' AND status IN (1, 2)") <= 1);
            one = r.get("jobs");
        }
        assertEquals(locks + 2, store.statementsExecuted(Stmt.QUEUE_LOCK_CAPPED), "capped claims still lock the queue");
        assertEquals(0, claim(body("ac-capped", 5, acksFor(one))).get("jobs").size());
        assertEquals(3, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = 'ac-capped'"));
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process statement counters or wake-ups")
    void acksAreCommittedBeforeALongPollWaits() throws Exception {
        enqueue("ac-lp", 1);
        JsonNode held = claim(body("ac-lp", 1, null)).get("jobs");
        String id = held.get(0).get("id").asText();
        int before = wakeups.waiting();
        Map<String, Object> b = body("ac-lp", 1, acksFor(held));
        b.put("waitSeconds", 20);
        CompletableFuture<Http.Reply> waiting = CompletableFuture.supplyAsync(
                () -> http.send("POST", "/claim", b, Duration.ofSeconds(60)));
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.waiting() > before);
        assertEquals("SUCCEEDED", status(id), "acked while the claim still waits");
        assertFalse(waiting.isDone());
        enqueue("ac-lp", 1);
        Http.Reply r = waiting.get(10, TimeUnit.SECONDS);
        assertEquals(200, r.status());
        assertEquals(List.of(200), statuses(r.body().get("acks")));
        assertEquals(1, r.body().get("jobs").size());
    }

    @Test
    void aBadAckListIsRefusedWholeAndChangesNothing() {
        enqueue("ac-bad", 1);
        Http.Reply notArray = http.post("/claim", Map.of("workerId", "ac", "queues", List.of("ac-bad"), "ack", "x"));
        assertEquals(400, notArray.status());
        assertTrue(notArray.contentType().startsWith("application/problem+json"));
        List<Object> tooMany = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            tooMany.add(Map.of("id", "1", "leaseId", "00000000-0000-4000-8000-000000000000"));
        }
        Http.Reply big = http.post("/claim", Map.of("workerId", "ac", "queues", List.of("ac-bad"), "ack", tooMany));
        assertEquals(400, big.status());
        assertTrue(big.body().get("detail").asText().contains("ack"));
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job WHERE status <> 0"), "nothing was claimed");

        JsonNode empty = claim(body("ac-bad", 1, List.of()));
        assertEquals(0, empty.get("acks").size());
        assertEquals(1, empty.get("jobs").size(), "an empty ack list is a plain claim");
    }

    private static List<Integer> statuses(JsonNode answers) {
        List<Integer> out = new ArrayList<>();
        answers.forEach(a -> out.add(a.get("status").asInt()));
        return out;
    }
}
