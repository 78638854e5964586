package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Http;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The database refuses work (a full disk, a revoked privilege, a read-only transaction, an
 * exhausted resource): the answer is a 503 problem+json with Retry-After that names the
 * database's code, never a 500, and nothing is half done; once the database takes work again,
 * so does the broker. The refusal is PostgreSQL's own error, raised with its SQLSTATE by a
 * trigger on the job table (real errors through the real driver; a real full disk is
 * faults/FullDiskIT). SQL Server's codes for the same classes are in SqlServerDialectTest.
 */
@QuarkusTest
class DatabaseRefusalTest {

    @TestHTTPResource("/")
    URI base;

    Http http;

    @BeforeEach
    void setUp() {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "raises PostgreSQL SQLSTATEs through a PL/pgSQL trigger");
        TestDb.clean();
        http = new Http(base);
    }

    @AfterEach
    void dropTrigger() {
        if (TestDb.engine() == Engine.POSTGRESQL) {
            TestDb.exec("DROP TRIGGER IF EXISTS readpast_test_refusal ON readpast_job");
            TestDb.exec("DROP FUNCTION IF EXISTS readpast_test_refusal()");
        }
    }

    private void refuseInserts(String sqlstate, String message) {
        TestDb.exec("CREATE OR REPLACE FUNCTION readpast_test_refusal() RETURNS trigger LANGUAGE plpgsql AS $$ "
                + "BEGIN RAISE EXCEPTION '" + message + "' USING ERRCODE = '" + sqlstate + "'; END $$");
        TestDb.exec("CREATE TRIGGER readpast_test_refusal BEFORE INSERT ON readpast_job FOR EACH ROW "
                + "EXECUTE FUNCTION readpast_test_refusal()");
    }

    @Test
    void everyRefusalIsA503WithRetryAfterAndNothingIsHalfDone() {
        String[][] refusals = {
                {"53100", "could not extend file: No space left on device", "database-unavailable"},
                {"53200", "out of memory", "database-unavailable"},
                {"53400", "configuration limit exceeded", "database-unavailable"},
                {"25006", "cannot execute INSERT in a read-only transaction", "database-unavailable"},
                {"42501", "permission denied for table readpast_job", "database-refused"},
        };
        for (String[] r : refusals) {
            refuseInserts(r[0], r[1]);
            String before = TestDb.snapshot();
            for (Object body : new Object[] {Map.of("queue", "full", "type", "t"),
                    Map.of("jobs", java.util.List.of(Map.of("queue", "full", "type", "t")))}) {
                String path = body instanceof Map<?, ?> m && m.containsKey("jobs") ? "/jobs/batch" : "/jobs";
                Http.Reply reply = http.send("POST", path, body, Duration.ofSeconds(30));
                assertEquals(503, reply.status(), r[0] + " " + path + ": " + reply.body());
                assertTrue(reply.contentType().startsWith("application/problem+json"), reply.contentType());
                assertEquals("urn:readpast:problem:" + r[2], reply.body().get("type").asText(), r[0]);
                assertTrue(reply.body().get("detail").asText().contains("SQLSTATE " + r[0]), reply.body().toString());
                assertNotNull(reply.retryAfter(), r[0] + ": Retry-After");
            }
            assertEquals(before, TestDb.snapshot(), r[0] + ": nothing was written");
            dropTrigger();
            Http.Reply ok = http.post("/jobs", Map.of("queue", "full", "type", "t"));
            assertEquals(201, ok.status(), r[0] + ": served again once the database takes work: " + ok.body());
        }
    }
}
