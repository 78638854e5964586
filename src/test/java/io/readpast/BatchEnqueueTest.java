package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Http;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.store.Database;
import io.readpast.store.jdbc.JdbcStores;
import io.readpast.store.Stmt;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Batch enqueue is one set-based statement: every field of every item lands, in item order. */
@QuarkusTest
class BatchEnqueueTest {

    @TestHTTPResource("/")
    URI base;

    @Inject
    Database database;

    Http http;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    private JsonNode batch(List<?> jobs) {
        Http.Reply r = http.send("POST", "/jobs/batch", Map.of("jobs", jobs), Duration.ofSeconds(60));
        assertEquals(200, r.status(), () -> String.valueOf(r.body()));
        return r.body();
    }

    @Test
    void aThousandJobsAreOneStatementAndComeBackInOrder() {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish returns JSON string members still escaped (OPENJSON defect): batch payloads and results");
        JdbcStores store = database.start();
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            jobs.add(Map.of("queue", "bulk-" + (i % 3), "type", "t", "payload", Map.of("i", i)));
        }
        long many = store.statementsExecuted(Stmt.JOB_INSERT_MANY);
        long single = store.statementsExecuted(Stmt.JOB_INSERT);
        JsonNode r = batch(jobs);
        assertEquals(1000, r.get("succeeded").asInt());
        assertEquals(many + 1, store.statementsExecuted(Stmt.JOB_INSERT_MANY));
        assertEquals(single, store.statementsExecuted(Stmt.JOB_INSERT));
        long previous = 0;
        for (int i = 0; i < 1000; i++) {
            JsonNode item = r.get("results").get(i);
            assertEquals(i, item.get("index").asInt());
            assertEquals(201, item.get("status").asInt());
            assertEquals(i, item.get("job").get("payload").get("i").asInt(), "item " + i + " got its own job");
            assertEquals("bulk-" + (i % 3), item.get("job").get("queue").asText());
            long id = item.get("id").asLong();
            assertTrue(id > previous, "ids follow the items");
            previous = id;
        }
        assertEquals(3, TestDb.count("SELECT count(*) FROM readpast_queue WHERE name LIKE 'bulk-%'"));
        assertEquals(1000, TestDb.count("SELECT count(*) FROM readpast_job"));
    }

    @Test
    void everyFieldOfEveryItemIsKept() {
        assumeTrue(TestDb.jsonStringsUnescaped(), "Babelfish returns JSON string members still escaped (OPENJSON defect): batch payloads and results");
        assertEquals(200, http.send("PUT", "/queues/be-conf", Map.of("maxAttempts", 7), Duration.ofSeconds(10)).status());
        String payload = "{\"text\":\"tab\\t quote\\\" backslash\\\\ é 漢字 \\u0001\",\"n\":[1,2.5,null,true]}";
        Map<String, Object> full = new LinkedHashMap<>();
        full.put("queue", "be-a");
        full.put("type", "full/type:v1");
        full.put("payload", readTree(payload));
        full.put("priority", -3);
        full.put("tags", List.of("x", "y z"));
        full.put("maxAttempts", 9);
        full.put("runAt", "2030-01-02T03:04:05.123456Z");
        Map<String, Object> delayed = Map.of("queue", "be-conf", "type", "t", "delaySeconds", 3600);
        Map<String, Object> plain = Map.of("queue", "be-a", "type", "t");
        Instant before = Instant.now();
        JsonNode r = batch(List.of(full, delayed, plain));
        assertEquals(List.of(201, 201, 201), statuses(r));

        JsonNode a = http.send("GET", "/jobs/" + r.get("results").get(0).get("id").asText(), null, Duration.ofSeconds(10)).body();
        assertEquals("full/type:v1", a.get("type").asText());
        assertEquals(readTree(payload), a.get("payload"));
        assertEquals(-3, a.get("priority").asInt());
        assertEquals("[\"x\",\"y z\"]", a.get("tags").toString());
        assertEquals(9, a.get("maxAttempts").asInt());
        assertEquals(Instant.parse("2030-01-02T03:04:05.123456Z"), Instant.parse(a.get("runAt").asText()));
        assertEquals("PENDING", a.get("status").asText());
        // the payload text is stored as the API wrote it (no re-encoding on the way through the batch)
        assertEquals(readTree(payload).toString(), storedPayload(a.get("id").asLong()));

        JsonNode d = r.get("results").get(1).get("job");
        assertEquals(7, d.get("maxAttempts").asInt(), "the queue's maxAttempts when the item gives none");
        Instant due = Instant.parse(d.get("runAt").asText());
        assertTrue(due.isAfter(before.plusSeconds(3500)) && due.isBefore(Instant.now().plusSeconds(3700)), "due in an hour: " + due);

        JsonNode p = r.get("results").get(2).get("job");
        assertEquals(5, p.get("maxAttempts").asInt(), "the broker default");
        assertEquals("null", p.get("payload").toString());
        assertEquals("[]", p.get("tags").toString());
    }

    @Test
    void keysHeldByLiveJobsAndByEarlierItemsAnswerWithThoseJobs() {
        Http.Reply first = http.post("/jobs", Map.of("queue", "be-k", "type", "t", "idempotencyKey", "held"));
        assertEquals(201, first.status());
        String held = first.body().get("id").asText();
        JsonNode r = batch(List.of(
                Map.of("queue", "be-k", "type", "t", "idempotencyKey", "held"),
                Map.of("queue", "be-k", "type", "t", "idempotencyKey", "fresh", "payload", 1),
                Map.of("queue", "be-k", "type", "t"),
                Map.of("queue", "be-k", "type", "t", "idempotencyKey", "fresh", "payload", 2),
                Map.of("queue", "be-other", "type", "t", "idempotencyKey", "fresh")));
        assertEquals(List.of(200, 201, 201, 200, 409), statuses(r));
        assertEquals(held, r.get("results").get(0).get("id").asText());
        assertEquals(r.get("results").get(1).get("id").asText(), r.get("results").get(3).get("id").asText());
        assertEquals(1, r.get("results").get(3).get("job").get("payload").asInt(), "the first item with the key won");
        assertNotEquals(held, r.get("results").get(1).get("id").asText());
        assertEquals(3, TestDb.count("SELECT count(*) FROM readpast_job"));
    }

    private static String storedPayload(long id) {
        try (java.sql.Connection c = TestDb.dataSource().getConnection();
             java.sql.PreparedStatement ps = c.prepareStatement("SELECT payload FROM readpast_job WHERE id = ?")) {
            ps.setLong(1, id);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getString(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Integer> statuses(JsonNode r) {
        List<Integer> out = new ArrayList<>();
        r.get("results").forEach(i -> out.add(i.get("status").asInt()));
        return out;
    }

    private static JsonNode readTree(String json) {
        try {
            return Http.JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
