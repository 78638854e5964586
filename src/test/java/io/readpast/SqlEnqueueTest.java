package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;
import io.readpast.core.Wakeups;
import io.readpast.testsupport.EnqueueCases;
import io.readpast.testsupport.Http;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The SQL enqueue (readpast_enqueue, readpast_enqueue_many; V17 on both engines) inside the
 * application's own transaction: rollback leaves nothing, commit gives a job a worker claims
 * over HTTP, a waiting long-poll wakes, every hostile POST /jobs body is refused alike by both
 * paths with nothing written, racing idempotent enqueues give one job, and the producer role
 * can enqueue and do nothing else.
 */
@QuarkusTest
class SqlEnqueueTest {

    @TestHTTPResource("/")
    URI base;

    Http http;

    /** In process only (a QuarkusTest). */
    Wakeups wakeups = TestDb.bean(Wakeups.class);

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    /** What one SQL enqueue answered: the job id, or Readpast's refusal (code RP400/RP409, message). */
    record Outcome(Long id, boolean created, String code, String message) {
        boolean refused() {
            return code != null;
        }
    }

    static boolean postgres() {
        return TestDb.engine() == Engine.POSTGRESQL;
    }

    /** readpast_enqueue_many with a JSON array of POST /jobs bodies: the first item's outcome. */
    static Outcome many(Connection c, String jobs) throws SQLException {
        String sql = postgres() ? "SELECT job_position, job_id, created FROM readpast_enqueue_many(CAST(? AS json))"
                : "EXEC readpast_enqueue_many @jobs = ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, jobs);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "readpast_enqueue_many answers a row per job");
                assertEquals(0, rs.getInt("job_position"), "the first row answers the first item");
                assertFalse(rs.wasNull(), "job_position is set");
                return new Outcome(rs.getLong("job_id"), rs.getBoolean("created"), null, null);
            }
        } catch (SQLException e) {
            return refusal(e);
        }
    }

    /** readpast_enqueue with typed arguments (the ones the tests need). */
    static Outcome one(Connection c, String queue, String type, String payload, String idempotencyKey,
                       Long uniqueFor, String traceparent) throws SQLException {
        String sql = postgres()
                ? "SELECT readpast_enqueue(queue => ?, type => ?, payload => CAST(? AS jsonb), idempotency_key => ?, "
                + "unique_for => ?, traceparent => ?) AS id"
                : "SET NOCOUNT ON; DECLARE @id bigint; EXEC readpast_enqueue @queue = ?, @type = ?, @payload = ?, "
                + "@idempotency_key = ?, @unique_for = ?, @traceparent = ?, @id = @id OUTPUT; SELECT @id AS id;";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, queue);
            ps.setString(2, type);
            ps.setString(3, payload);
            ps.setString(4, idempotencyKey);
            ps.setObject(5, uniqueFor, java.sql.Types.BIGINT);
            ps.setString(6, traceparent);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return new Outcome(rs.getLong("id"), true, null, null);
            }
        } catch (SQLException e) {
            return refusal(e);
        }
    }

    /** Readpast's own refusal as code and message; any other error fails the test. */
    static Outcome refusal(SQLException e) throws SQLException {
        String code;
        String message = e.getMessage();
        if (postgres()) {
            code = e.getSQLState();
            message = message.startsWith("ERROR: ") ? message.substring(7) : message;
            int nl = message.indexOf('\n');
            message = nl < 0 ? message : message.substring(0, nl);
        } else {
            code = e.getErrorCode() >= 50000 && e.getErrorCode() < 51000 ? "RP" + (e.getErrorCode() - 50000) : e.getSQLState();
        }
        if (!code.startsWith("RP")) {
            throw e;
        }
        return new Outcome(null, false, code, message);
    }

    static Connection connection() throws SQLException {
        Connection c = TestDb.dataSource().getConnection();
        c.setAutoCommit(false);
        return c;
    }

    /**
     * Review round 2, N3: the SQL enqueue works from every isolation level the caller's
     * transaction may have, and leaves that level as it was (on SQL Server the procedures run at
     * READ COMMITTED inside, V28, and SQL Server gives the caller's level back when they return).
     * SNAPSHOT, SQL Server's own: LockRulesTest.snapshotCallersRacingOnOneKeyGetOneJob.
     */
    @Test
    void everyIsolationLevelEnqueuesAndKeepsItsLevel() throws Exception {
        int[] levels = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ,
                Connection.TRANSACTION_SERIALIZABLE};
        if (TestDb.babelfish()) {
            System.out.println("SqlEnqueueTest: READ COMMITTED only on Babelfish, which refuses REPEATABLE READ and "
                    + "SERIALIZABLE unless configured to map them to PostgreSQL's");
            levels = new int[] {Connection.TRANSACTION_READ_COMMITTED};
        }
        for (int level : levels) {
            String queue = "sql-iso-" + level;
            try (Connection c = connection()) {
                c.setTransactionIsolation(level);
                Outcome o = one(c, queue, "t", "{\"level\":" + level + "}", "iso-" + level, null, null);
                assertFalse(o.refused(), level + ": " + o);
                assertEquals(level, sessionLevel(c), "the caller's level after the enqueue");
                c.commit();
            }
            Http.Reply claim = http.post("/claim", Map.of("workerId", "w", "queues", List.of(queue)));
            assertEquals(1, claim.body().get("jobs").size(), level + ": the job is claimable after the commit");
        }
    }

    /**
     * Review round 2, L4: a refused SQL enqueue takes the caller's transaction with it, its own
     * writes too, whatever the caller's XACT_ABORT setting on SQL Server (the procedures set it
     * ON, and THROW honours it); on PostgreSQL an error aborts the transaction. docs/sql-enqueue.md
     * says so.
     */
    @Test
    void aRefusalTakesTheCallersTransactionWithIt() throws Exception {
        List<String> settings = postgres() ? List.of("") : List.of("SET XACT_ABORT ON", "SET XACT_ABORT OFF");
        int n = 0;
        for (String setting : settings) {
            String queue = "sql-l4-" + n++;
            try (Connection c = connection()) {
                if (!setting.isEmpty()) {
                    try (Statement s = c.createStatement()) {
                        s.execute(setting);
                    }
                }
                assertFalse(one(c, queue, "t", "{}", null, null, null).refused(), "the first enqueue is good");
                Outcome bad = one(c, "bad queue!", "t", "{}", null, null, null);
                assertTrue(bad.refused() && bad.code().equals("RP400"), setting + ": " + bad);
                try {
                    c.commit();
                } catch (SQLException expected) {
                    // SQL Server: the transaction was rolled back already (no transaction to commit)
                }
            }
            assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = '" + queue + "'"),
                    setting + ": the first job went with the refused call's transaction");
        }
    }

    /** The isolation level of the connection's session, as JDBC numbers it. */
    static int sessionLevel(Connection c) throws SQLException {
        String sql = postgres() ? "SELECT current_setting('transaction_isolation')"
                : "SELECT transaction_isolation_level FROM sys.dm_exec_sessions WHERE session_id = @@SPID";
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next());
            if (postgres()) {
                return switch (rs.getString(1)) {
                    case "read committed" -> Connection.TRANSACTION_READ_COMMITTED;
                    case "repeatable read" -> Connection.TRANSACTION_REPEATABLE_READ;
                    case "serializable" -> Connection.TRANSACTION_SERIALIZABLE;
                    default -> -1;
                };
            }
            return switch (rs.getInt(1)) {
                case 2 -> Connection.TRANSACTION_READ_COMMITTED;
                case 3 -> Connection.TRANSACTION_REPEATABLE_READ;
                case 4 -> Connection.TRANSACTION_SERIALIZABLE;
                case 5 -> 0x1000;
                default -> -1;
            };
        }
    }

    @Test
    void aRolledBackTransactionLeavesNoJob() throws Exception {
        try (Connection c = connection()) {
            Outcome o = one(c, "sql-rb", "t", "{\"order\":1}", null, null, null);
            assertFalse(o.refused(), String.valueOf(o));
            c.rollback();
        }
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'sql-rb'"));
        Http.Reply claim = http.post("/claim", Map.of("workerId", "w", "queues", List.of("sql-rb")));
        assertEquals(0, claim.body().get("jobs").size(), "nothing to claim after the rollback");
    }

    @Test
    void aCommittedTransactionGivesAJobAWorkerClaimsOverHttp() throws Exception {
        String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        long id;
        try (Connection c = connection()) {
            try (Statement s = c.createStatement()) {
                // the application's own write in the same transaction
                s.executeUpdate("UPDATE readpast_queue SET paused = paused WHERE name = 'none'");
            }
            Outcome o = one(c, "sql-commit", "send", "{\"to\":\"a@example.com\"}", null, null, traceparent);
            assertFalse(o.refused(), String.valueOf(o));
            id = o.id();
            Http.Reply before = http.post("/claim", Map.of("workerId", "w", "queues", List.of("sql-commit")));
            assertEquals(0, before.body().get("jobs").size(), "not claimable before the commit");
            c.commit();
        }
        Http.Reply claim = http.post("/claim", Map.of("workerId", "w", "queues", List.of("sql-commit")));
        JsonNode job = claim.body().get("jobs").get(0);
        assertEquals(Long.toString(id), job.get("id").asText());
        assertEquals("send", job.get("type").asText());
        assertEquals("a@example.com", job.get("payload").get("to").asText());
        assertEquals(traceparent, job.get("traceparent").asText());
        Http.Reply done = http.post("/jobs/" + id + "/complete", Map.of("leaseId", job.get("leaseId").asText()));
        assertEquals(200, done.status());
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it reads the in-process wake-ups")
    void aWaitingLongPollWakesAtTheCommit() throws Exception {
        int before = wakeups.waiting();
        CompletableFuture<Http.Reply> claim = CompletableFuture.supplyAsync(() -> http.send("POST", "/claim",
                Map.of("workerId", "lp", "queues", List.of("sql-lp"), "waitSeconds", 20), Duration.ofSeconds(60)));
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.waiting() > before);
        long id;
        long committed;
        try (Connection c = connection()) {
            id = one(c, "sql-lp", "t", null, null, null, null).id();
            c.commit();
            committed = System.nanoTime();
        }
        Http.Reply r = claim.get(20, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - committed) / 1_000_000;
        assertEquals(Long.toString(id), r.body().get("jobs").get(0).get("id").asText());
        // PostgreSQL: the function's NOTIFY at commit; SQL Server: the due poll that waiting claims run
        assertTrue(ms < 5_000, "the waiting claim had the job " + ms + " ms after the commit (its deadline was 20 s)");
        System.out.printf("SQL enqueue to long-poll wake-up: %d ms%n", ms);
    }

    @Test
    void everyHostileEnqueueIsRefusedAlikeByBothPathsAndWritesNothing() throws Exception {
        String before = TestDb.snapshot();
        List<String> failures = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        int compared = 0;
        for (String body : EnqueueCases.badBodies()) {
            String why = babelfishCannotCompare(body);
            if (why != null) {
                skipped.add(abbreviate(body) + ": " + why);
                continue;
            }
            Http.Reply h = http.post("/jobs", body);
            Outcome s;
            try (Connection c = connection()) {
                s = many(c, "[" + body + "]");
                c.rollback();
            } catch (SQLException e) {
                // JSON the database cannot even parse (the HTTP side answers it 400 as malformed)
                s = new Outcome(null, false, "parse:" + e.getSQLState(), e.getMessage());
            }
            String what = abbreviate(body) + " -> HTTP " + h.status() + " " + detail(h) + " / SQL " + s;
            if (h.status() < 400 || h.status() >= 500) {
                failures.add("HTTP accepted or failed: " + what);
                continue;
            }
            String expected = h.status() == 409 ? "RP409" : "RP400";
            if (!s.refused()) {
                failures.add("SQL accepted: " + what);
            } else if (!s.code().equals(expected) && !(s.code().startsWith("parse:") && h.status() == 400)) {
                failures.add("SQL code " + s.code() + ", expected " + expected + ": " + what);
            } else if (body.contains("\\u0000") && s.message().startsWith("A string holds \\u0000 (NUL)")) {
                continue; // PostgreSQL's JSON functions cannot read an escaped NUL: refused as such (docs/sql-enqueue.md)
            } else if (ruleMessage(detail(h)) && !s.message().equals("jobs[0]: " + detail(h))) {
                failures.add("messages differ: " + what);
            } else if (ruleMessage(detail(h))) {
                compared++;
            }
        }
        System.out.printf("SQL enqueue parity: %d hostile bodies, %d with the same message on both paths, %d skipped%n",
                EnqueueCases.badBodies().size(), compared, skipped.size());
        skipped.forEach(x -> System.out.println("  skipped on Babelfish: " + x));
        if (!failures.isEmpty()) {
            fail(failures.size() + " differences:\n" + String.join("\n", failures));
        }
        assertTrue(compared >= 50, "most refusals come from the shared rules, with their messages compared: " + compared);
        assertEquals(before, TestDb.snapshot(), "nothing was written by either path");
    }

    @Test
    void everyGoodEnqueueIsStoredAlikeByBothPaths() throws Exception {
        List<String> failures = new ArrayList<>();
        int n = 0;
        for (String fields : EnqueueCases.goodFields()) {
            n++;
            if (babelfishCannotCompare(fields) != null && fields.startsWith("\"payload\":\"")) {
                continue; // a string payload passes through OPENJSON's string value (see babelfishCannotCompare)
            }
            String h = "{\"queue\":\"good-http-" + n + "\",\"type\":\"t/$.x\"" + (fields.isEmpty() ? "" : "," + fields) + "}";
            String s = h.replace("good-http-", "good-sql-");
            Http.Reply reply = http.post("/jobs", h);
            if (reply.status() != 201) {
                failures.add("HTTP " + reply.status() + " " + detail(reply) + ": " + h);
                continue;
            }
            Outcome o;
            try (Connection c = connection()) {
                o = many(c, "[" + s + "]");
                c.commit();
            } catch (SQLException e) {
                failures.add("SQL failed " + e.getMessage() + ": " + s);
                continue;
            }
            if (o.refused()) {
                failures.add("SQL refused " + o + ": " + s);
                continue;
            }
            Map<String, Object> a = row(Long.parseLong(reply.body().get("id").asText()));
            Map<String, Object> b = row(o.id());
            // POST /jobs stores its enqueue span's context (a child in the producer's trace, or a
            // new trace when the producer sent none); the SQL enqueue stores the producer's own
            Object httpTrace = a.remove("traceparent");
            Object sqlTrace = b.remove("traceparent");
            a.put("trace", sqlTrace == null ? null : trace(httpTrace));
            b.put("trace", trace(sqlTrace));
            boolean same = a.keySet().equals(b.keySet())
                    && a.keySet().stream().allMatch(k -> sameJson(a.get(k), b.get(k)));
            if (!same) {
                failures.add(fields + ":\n  HTTP " + a + "\n  SQL  " + b);
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " differences:\n" + String.join("\n", failures));
        }
    }

    /** The stored job as both paths must store it (JSON compared as JSON; delays as the time to due). */
    static Map<String, Object> row(long id) throws Exception {
        try (Connection c = TestDb.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT * FROM readpast_job WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "job " + id + " is stored");
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", rs.getString("type"));
                m.put("payload", json(rs.getString("payload")));
                m.put("tags", rs.getString("tags") == null ? null : json(rs.getString("tags")));
                for (String col : List.of("priority", "max_attempts", "status")) {
                    m.put(col, rs.getInt(col));
                }
                for (String col : List.of("group_key", "webhook_url", "traceparent", "tracestate", "fairness_key")) {
                    m.put(col, rs.getString(col));
                }
                Instant created = TestDb.instant(rs, "created_at");
                Instant due = TestDb.instant(rs, "due_at");
                Instant expires = TestDb.instant(rs, "expires_at");
                // a delay: due this long after the enqueue (seconds); a runAt: the instant itself
                long delay = Duration.between(created, due).toMillis();
                m.put("due", delay > -2_000 && delay < 3_600_000 ? "in " + Math.round(delay / 1000.0) + " s" : due.toString());
                m.put("expires_at", expires == null ? null : expires.toString());
                return m;
            }
        }
    }

    /** The trace id of a traceparent (null: none). */
    static String trace(Object traceparent) {
        return traceparent == null ? null : ((String) traceparent).substring(3, 35);
    }

    static JsonNode json(String text) throws Exception {
        return Http.JSON.readTree(text);
    }

    @Test
    void aBatchAnswersEveryItemInOrderAndABadItemRefusesTheWholeCall() throws Exception {
        String sql = postgres() ? "SELECT job_position, job_id, created FROM readpast_enqueue_many(CAST(? AS json))"
                : "EXEC readpast_enqueue_many @jobs = ?";
        List<long[]> rows = new ArrayList<>();
        try (Connection c = connection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, "[{\"queue\":\"sql-batch\",\"type\":\"a\",\"idempotencyKey\":\"b-1\"},"
                    + "{\"queue\":\"sql-batch\",\"type\":\"b\",\"groupKey\":\"g\"},"
                    + "{\"queue\":\"sql-batch\",\"type\":\"c\",\"idempotencyKey\":\"b-1\"}]");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new long[] {rs.getInt("job_position"), rs.getLong("job_id"), rs.getBoolean("created") ? 1 : 0});
                }
            }
            c.commit();
        }
        assertEquals(3, rows.size());
        for (int i = 0; i < 3; i++) {
            assertEquals(i, rows.get(i)[0], "rows in item order");
        }
        assertEquals(1, rows.get(0)[2]);
        assertEquals(1, rows.get(1)[2]);
        assertEquals(rows.get(0)[1], rows.get(2)[1], "the third item's key is the first's: its job");
        assertEquals(0, rows.get(2)[2], "not created");
        String before = TestDb.snapshot();
        try (Connection c = connection()) {
            Outcome o = many(c, "[{\"queue\":\"sql-batch\",\"type\":\"ok\"},{\"queue\":\"sql-batch\",\"type\":\"t\",\"maxAttempts\":0}]");
            assertEquals("RP400", o.code(), String.valueOf(o));
            assertEquals("jobs[1]: 'maxAttempts' must be between 1 and 1000 (got 0).", o.message());
            c.rollback();
        }
        assertEquals(before, TestDb.snapshot(), "the good first item was not written either");
    }

    @Test
    void racingTransactionsOnOneIdempotencyKeyGiveOneJob() throws Exception {
        CountDownLatch firstInserted = new CountDownLatch(1);
        try (Connection first = connection(); Connection second = connection()) {
            Outcome a = one(first, "sql-idem", "t", "{\"n\":1}", "order-42", null, null);
            firstInserted.countDown();
            // the second waits for the first's uncommitted key, then finds its job
            CompletableFuture<Outcome> b = CompletableFuture.supplyAsync(() -> {
                try {
                    Outcome o = one(second, "sql-idem", "t", "{\"n\":2}", "order-42", null, null);
                    second.commit();
                    return o;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertFalse(b.isDone(), "the second enqueue waits for the first transaction");
            first.commit();
            Outcome other = b.get(20, TimeUnit.SECONDS);
            assertEquals(a.id(), other.id(), "both transactions answer the one job");
        }
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job WHERE idempotency_key = 'order-42'"));
        // and POST /jobs with the key finds the same job
        Http.Reply h = http.post("/jobs", Map.of("queue", "sql-idem", "type", "t", "idempotencyKey", "order-42"));
        assertEquals(200, h.status());
        Http.Reply other = http.post("/jobs", Map.of("queue", "elsewhere", "type", "t", "idempotencyKey", "order-42"));
        assertEquals(409, other.status());
        try (Connection c = connection()) {
            Outcome o = one(c, "elsewhere", "t", null, "order-42", null, null);
            assertEquals("RP409", o.code(), "the key held by another queue's job: " + o);
            c.rollback();
        }
    }

    @Test
    void aUniquenessWindowIsSharedWithPostJobs() throws Exception {
        assumeTrue(postgres(), "SQL Server's SQL enqueue digests the payload text as given (T-SQL has no canonical "
                + "JSON form); there the paths share a window through an idempotency key (docs/sql-enqueue.md)");
        Http.Reply h = http.post("/jobs", "{\"queue\":\"sql-uniq\",\"type\":\"t\",\"payload\":{\"b\":1,\"a\":[1,2]},\"uniqueFor\":60}");
        assertEquals(201, h.status());
        try (Connection c = connection()) {
            Outcome o = one(c, "sql-uniq", "t", "{\"a\": [1, 2],   \"b\": 1}", null, 60L, null);
            c.commit();
            assertEquals(h.body().get("id").asText(), Long.toString(o.id()), "members in another order: the same job");
        }
        Http.Reply again = http.post("/jobs", "{\"queue\":\"sql-uniq\",\"type\":\"t\",\"payload\":{\"a\":[1,2],\"b\":1},\"uniqueFor\":60}");
        assertEquals(200, again.status());
        assertEquals(1, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'sql-uniq'"));
    }

    @Test
    void theProducerRoleMayEnqueueAndNothingElse() throws Exception {
        if (postgres()) {
            String url;
            try (Connection c = TestDb.dataSource().getConnection(); Statement s = c.createStatement()) {
                url = c.getMetaData().getURL();
                ResultSet rs = s.executeQuery("SELECT rolsuper FROM pg_roles WHERE rolname = current_user");
                assumeTrue(rs.next() && rs.getBoolean(1), "creating a login role for the test needs a superuser");
                s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'readpast_test_producer') "
                        + "THEN CREATE ROLE readpast_test_producer LOGIN IN ROLE readpast_producer; END IF; END $$");
            }
            Connection p;
            try {
                p = DriverManager.getConnection(url, "readpast_test_producer", "");
            } catch (SQLException e) {
                assumeTrue(false, "this database does not let the test role log in without a password: " + e.getMessage());
                return;
            }
            try (p) {
                p.setAutoCommit(false);
                Outcome o = one(p, "sql-role", "t", "{}", null, null, null);
                assertFalse(o.refused(), String.valueOf(o));
                Outcome batch = many(p, "[{\"queue\":\"sql-role\",\"type\":\"t\"}]");
                assertFalse(batch.refused(), String.valueOf(batch));
                p.commit();
                for (String sql : List.of("SELECT count(*) FROM readpast_job", "DELETE FROM readpast_job",
                        "SELECT * FROM readpast_enqueue_item('', CAST('{}' AS json))",
                        "INSERT INTO readpast_setting (name, value) VALUES ('payload_max_bytes', '9')")) {
                    try (Statement s = p.createStatement()) {
                        s.execute(sql);
                        fail("the producer role could run: " + sql);
                    } catch (SQLException e) {
                        assertEquals("42501", e.getSQLState(), sql + ": " + e.getMessage());
                        p.rollback();
                    }
                }
            }
        } else {
            assumeTrue(!TestDb.babelfish(), "Babelfish does not run EXECUTE AS USER");
            try (Connection c = TestDb.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("IF USER_ID('readpast_test_producer') IS NULL CREATE USER readpast_test_producer WITHOUT LOGIN");
                s.execute("ALTER ROLE readpast_producer ADD MEMBER readpast_test_producer");
                s.execute("EXECUTE AS USER = 'readpast_test_producer'");
                try {
                    c.setAutoCommit(false);
                    Outcome o = one(c, "sql-role", "t", "{}", null, null, null);
                    assertFalse(o.refused(), String.valueOf(o));
                    c.commit();
                    c.setAutoCommit(true);
                    for (String sql : List.of("SELECT count(*) FROM readpast_job", "DELETE FROM readpast_job",
                            "UPDATE readpast_setting SET value = '9'")) {
                        try {
                            s.execute(sql);
                            fail("the producer role could run: " + sql);
                        } catch (SQLException e) {
                            assertEquals(229, e.getErrorCode(), sql + ": " + e.getMessage());
                        }
                    }
                } finally {
                    s.execute("REVERT");
                }
            }
        }
        assertEquals(2 - (postgres() ? 0 : 1), TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'sql-role'"));
    }

    /**
     * Why a body cannot be compared on this engine, or null. Babelfish (not SQL Server) hands
     * JSON strings over still escaped ({@code "a\\nb"} arrives as a backslash and an n) and counts
     * a character beyond U+FFFF as one (Java: two), so such bodies mean nothing there.
     */
    static String babelfishCannotCompare(String body) {
        if (!TestDb.babelfish()) {
            return null;
        }
        if (body.contains("\\")) {
            return "Babelfish's OPENJSON leaves JSON escapes in strings";
        }
        if (body.codePoints().anyMatch(cp -> cp > 0xFFFF)) {
            return "Babelfish counts a character beyond U+FFFF as one";
        }
        return null;
    }

    /** JSON values as equal when they are the same value (numbers by value: -3e2 is -300). */
    static boolean sameJson(Object a, Object b) {
        if (a instanceof JsonNode x && b instanceof JsonNode y) {
            return x.equals((p, q) -> p.isNumber() && q.isNumber()
                    ? p.decimalValue().compareTo(q.decimalValue())
                    : p.equals(q) ? 0 : 1, y);
        }
        return java.util.Objects.equals(a, b);
    }

    /** A refusal message that comes from the shared rules (not from JSON type mapping). */
    static boolean ruleMessage(String detail) {
        return detail != null && (detail.startsWith("'") || detail.startsWith("Give either")
                || detail.startsWith("This idempotency") || detail.startsWith("Unknown field"));
    }

    static String detail(Http.Reply r) {
        return r.body() == null || r.body().get("detail") == null ? null : r.body().get("detail").asText();
    }

    static String abbreviate(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "..." : s;
    }
}
