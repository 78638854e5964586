package io.readpast.store;

import io.readpast.store.jdbc.JdbcStores;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.TestDb;
import io.readpast.config.Engine;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What only a real SQL Server can show (reviews/tsql-review.md H3, M2): the claim statements
 * reach every row of the job and webhook tables by seek, in the plans the server compiled
 * cold with a large limit on a small table (sys.dm_exec_query_stats), and a claim over three
 * queues locks only the rows it takes (sys.dm_tran_locks inside its open transaction). Skips on
 * PostgreSQL, which has neither, and on Babelfish, which answers T-SQL without SQL Server's
 * optimizer or lock manager.
 */
@QuarkusTest
class SqlServerLocksAndPlansTest {

    private static final String SHOWPLAN = "http://schemas.microsoft.com/sqlserver/2004/07/showplan";

    @Inject
    Database database;

    @BeforeEach
    void setUp() {
        assumeTrue(TestDb.engine() == Engine.SQLSERVER && !TestDb.babelfish(), "needs a real SQL Server: "
                + (TestDb.engine() == Engine.SQLSERVER ? "Babelfish has no SQL Server plans or lock manager"
                : "PostgreSQL has no showplan XML or sys.dm_tran_locks"));
        TestDb.clean();
    }

    private static NewJob job(String queue, int priority) {
        return new NewJob(queue, "t", "{}", null, null, priority, null, 3, null, 0, null, null, null, null, 0, null);
    }

    private void pending(String queue, int n, int priority) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(job(queue, priority));
        }
        database.start().jobs().jobInsertMany(jobs);
    }

    @Test
    void claimStatementsSeekEveryRowTheyTouch() throws Exception {
        JdbcStores store = database.start();
        for (String q : new String[] {"plan-a", "plan-b", "plan-c"}) {
            pending(q, 100, 0);
        }
        TestDb.exec("EXEC sp_recompile N'readpast_job'");
        TestDb.exec("EXEC sp_recompile N'readpast_webhook'");
        List<JobRow> claimed = store.jobs().jobClaim(new ClaimParams("plan", null, 1000, null, 30, null));
        assertEquals(300, claimed.size());
        // ack-and-claim, the expiry sweeper and the webhook sender compile cold too
        store.jobs().jobAckClaim(List.of(new CompleteItem(claimed.get(0).id(), claimed.get(0).leaseId(), null)),
                new ClaimParams("plan", null, 1000, null, 30, null));
        store.maintenance().jobExpirePending(1000);
        store.webhooks().webhookClaim(1000, 30);

        List<String> scans = new ArrayList<>();
        List<CachedPlan> cached = cachedPlans("t.text LIKE N'%ix_readpast_job_claim%' OR t.text LIKE N'%ix_readpast_job_expiry%' "
                + "OR t.text LIKE N'%ix_readpast_webhook_due%'");
        int plans = cached.size();
        for (CachedPlan p : cached) {
            scans.addAll(nonSeeks(p.xml(), p.statement()));
        }
        assertTrue(plans > 5, "the claim statements' plans are in the cache: " + plans);
        assertTrue(scans.isEmpty(), "reads of the job and webhook tables that are not seeks:\n" + String.join("\n", scans));
    }

    /**
     * The statements whose FORCESEEK target was reached through IN (subquery), rewritten as joins
     * from their table variables (FORCESEEK with IN (subquery) can fail to plan, error 8622):
     * job_dep_lock_parents, batch_lock_parents, job_link, job_dep_settle (both updates) and
     * queue_lock_capped's include queue_lock_rows. Each runs (a failure to plan fails its request)
     * and every read of the tables they lock is a seek.
     */
    @Test
    void theForceseekJoinsPlanAndSeek() throws Exception {
        io.restassured.http.ContentType json = io.restassured.http.ContentType.JSON;
        given().contentType(json).body(java.util.Map.of("maxWorkers", 2)).put("/queues/fs-capped").then().statusCode(200);
        String parent = given().contentType(json).body(java.util.Map.of("queue", "fs", "type", "t"))
                .post("/jobs").then().statusCode(201).extract().path("id");
        String batch = given().contentType(json).body(java.util.Map.of("jobs", List.of(java.util.Map.of("queue", "fs",
                "type", "t")))).post("/batches").then().statusCode(201).extract().path("id");
        given().contentType(json).body(java.util.Map.of("queue", "fs-child", "type", "t", "dependsOn",
                java.util.Map.of("jobs", List.of(parent), "batches", List.of(batch))))
                .post("/jobs").then().statusCode(201).body("status", org.hamcrest.Matchers.equalTo("WAITING"));
        io.restassured.path.json.JsonPath c = given().contentType(json).body(java.util.Map.of("workerId", "w",
                "queues", List.of("fs"), "limit", 10)).post("/claim").then().statusCode(200).extract().jsonPath();
        List<String> ids = c.getList("jobs.id");
        List<String> leases = c.getList("jobs.leaseId");
        assertEquals(2, ids.size());
        for (int k = 0; k < ids.size(); k++) {
            given().contentType(json).body(java.util.Map.of("leaseId", leases.get(k)))
                    .post("/jobs/" + ids.get(k) + "/complete").then().statusCode(200);
        }
        given().contentType(json).body(java.util.Map.of("queue", "fs-capped", "type", "t")).post("/jobs").then()
                .statusCode(201);
        given().contentType(json).body(java.util.Map.of("workerId", "w", "queues", List.of("fs-capped", "fs-child"),
                "limit", 10)).post("/claim").then().statusCode(200).body("jobs.size()", org.hamcrest.Matchers.equalTo(2));

        List<String> scans = new ArrayList<>();
        List<CachedPlan> cached = cachedPlans("t.text LIKE N'%error 8622%'");
        int plans = cached.size();
        for (CachedPlan p : cached) {
            scans.addAll(nonSeeks(p.xml(), p.statement(), java.util.Set.of("[readpast_job]", "[readpast_batch]",
                    "[readpast_job_dep]", "[readpast_queue]")));
        }
        assertTrue(plans >= 5, "the rewritten statements' plans are in the cache: " + plans);
        assertTrue(scans.isEmpty(), "reads in the rewritten statements that are not seeks:\n" + String.join("\n", scans));
    }

    /**
     * Issue 41 part 6 (review round 2, N6, N7): the fair claim (round-robin alone, and with key
     * limits under the queue lock), ack-and-claim on a capped and on a rate-limited queue, and
     * claims over ordered groups, with 1,000,000 archived and 100,000 pending jobs: every read of
     * the job table in their plans is a seek (no scan past the claim's range, whatever the tables
     * hold), and no plan spilled a sort or a hash to tempdb.
     */
    @Test
    void fairCappedRateLimitedAndGroupClaimsSeekAtScale() throws Exception {
        io.restassured.http.ContentType json = io.restassured.http.ContentType.JSON;
        java.util.Map<String, java.util.Map<String, Object>> queues = new java.util.LinkedHashMap<>();
        queues.put("scale-rr", java.util.Map.of("fairness", "round-robin"));
        queues.put("scale-keycap", java.util.Map.of("fairness", "round-robin", "keyMaxWorkers", 2));
        queues.put("scale-capped", java.util.Map.of("maxWorkers", 500));
        queues.put("scale-rated", java.util.Map.of("rateLimit", 100000, "ratePeriodSeconds", 60));
        queues.put("scale-grouped", java.util.Map.of());
        queues.forEach((q, settings) -> given().contentType(json).body(settings).put("/queues/" + q).then().statusCode(200));
        String numbers = "(SELECT TOP (%d) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n FROM sys.all_objects AS a "
                + "CROSS JOIN sys.all_objects AS b CROSS JOIN sys.all_objects AS c) AS g";
        TestDb.exec("INSERT INTO readpast_job_archive (id, queue, type, payload, priority, status, attempt, max_attempts, "
                + "due_at, created_at, updated_at, finished_at) SELECT -g.n, CONCAT(N'scale-', g.n % 5), N't', N'{}', 0, 3, "
                + "1, 3, SYSUTCDATETIME(), SYSUTCDATETIME(), SYSUTCDATETIME(), SYSUTCDATETIME() FROM "
                + String.format(numbers, 1_000_000));
        String[] names = queues.keySet().toArray(new String[0]);
        TestDb.exec("INSERT INTO readpast_job (queue, type, payload, priority, status, max_attempts, due_at, fairness_key, "
                + "group_key, group_seq) SELECT q.name, N't', N'{}', g.n % 3, 0, 3, SYSUTCDATETIME(), "
                + "CASE WHEN q.name LIKE N'scale-rr' OR q.name LIKE N'scale-keycap' THEN CONCAT(N'k', g.n % 200) END, "
                + "CASE WHEN q.name = N'scale-grouped' THEN CONCAT(N'g', g.n % 2000) END, "
                + "CASE WHEN q.name = N'scale-grouped' THEN g.n END "
                + "FROM " + String.format(numbers, 20_000) + " CROSS JOIN (VALUES (N'" + String.join("'), (N'", names)
                + "')) AS q(name)");
        TestDb.exec("UPDATE STATISTICS readpast_job");
        TestDb.exec("UPDATE STATISTICS readpast_job_archive");
        TestDb.exec("EXEC sp_recompile N'readpast_job'");
        for (String q : names) {
            io.restassured.path.json.JsonPath first = given().contentType(json).body(java.util.Map.of("workerId", "s",
                    "queues", List.of(q), "limit", 100)).post("/claim").then().statusCode(200).extract().jsonPath();
            List<String> ids = first.getList("jobs.id");
            List<String> leases = first.getList("jobs.leaseId");
            assertTrue(!ids.isEmpty(), q + ": the first claim took jobs");
            List<java.util.Map<String, Object>> ack = new ArrayList<>();
            for (int k = 0; k < ids.size(); k++) {
                ack.add(java.util.Map.of("id", ids.get(k), "leaseId", leases.get(k)));
            }
            given().contentType(json).body(java.util.Map.of("workerId", "s", "queues", List.of(q), "limit", 100, "ack", ack))
                    .post("/claim").then().statusCode(200);
        }

        List<String> problems = new ArrayList<>();
        List<CachedPlan> cached = cachedPlans("t.text LIKE N'%ix_readpast_job_fair%' OR t.text LIKE N'%ix_readpast_job_group%' "
                + "OR t.text LIKE N'%ix_readpast_job_claim%'");
        int plans = cached.size();
        for (CachedPlan p : cached) {
            problems.addAll(nonSeeks(p.xml(), p.statement(), java.util.Set.of("[readpast_job]", "[readpast_job_archive]")));
            if (p.xml().contains("SpillToTempDb") || p.xml().contains("SpillOccurred")) {
                problems.add("a spill to tempdb in: " + p.statement());
            }
        }
        assertTrue(plans > 10, "the claim statements' plans are in the cache: " + plans);
        assertTrue(problems.isEmpty(), "reads that are not seeks, or spills:\n" + String.join("\n", problems));
    }

    /** A cached plan of one statement: its showplan XML, and the statement's first 200 characters. */
    private record CachedPlan(String xml, String statement) {
    }

    /** The plans in SQL Server's cache of the statements whose batch text matches {@code where} (on t.text). */
    private static List<CachedPlan> cachedPlans(String where) throws Exception {
        List<CachedPlan> out = new ArrayList<>();
        try (Connection c = TestDb.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT CAST(p.query_plan AS nvarchar(max)), "
                     + "SUBSTRING(t.text, s.statement_start_offset / 2 + 1, 200) "
                     + "FROM sys.dm_exec_query_stats AS s "
                     + "CROSS APPLY sys.dm_exec_sql_text(s.sql_handle) AS t "
                     + "CROSS APPLY sys.dm_exec_text_query_plan(s.plan_handle, s.statement_start_offset, "
                     + "s.statement_end_offset) AS p "
                     + "WHERE " + where);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (rs.getString(1) != null) {
                    out.add(new CachedPlan(rs.getString(1), rs.getString(2).replaceAll("\\s+", " ")));
                }
            }
        }
        return out;
    }

    /** Every operator reading readpast_job or readpast_webhook whose physical operation is not a seek. */
    private static List<String> nonSeeks(String planXml, String statement) throws Exception {
        return nonSeeks(planXml, statement, java.util.Set.of("[readpast_job]", "[readpast_webhook]"));
    }

    /** Every operator reading one of {@code tables} whose physical operation is not a seek. */
    private static List<String> nonSeeks(String planXml, String statement, java.util.Set<String> tables)
            throws Exception {
        var factory = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        var doc = factory.newDocumentBuilder().parse(new org.xml.sax.InputSource(new StringReader(planXml)));
        List<String> out = new ArrayList<>();
        NodeList ops = doc.getElementsByTagNameNS(SHOWPLAN, "RelOp");
        for (int i = 0; i < ops.getLength(); i++) {
            Element op = (Element) ops.item(i);
            for (org.w3c.dom.Node child = op.getFirstChild(); child != null; child = child.getNextSibling()) {
                if (child instanceof Element e && "IndexScan".equals(e.getLocalName())) {
                    NodeList objects = e.getElementsByTagNameNS(SHOWPLAN, "Object");
                    for (int k = 0; k < objects.getLength(); k++) {
                        Element o = (Element) objects.item(k);
                        String table = o.getAttribute("Table");
                        if (tables.contains(table) && !op.getAttribute("PhysicalOp").contains("Seek")) {
                            out.add(op.getAttribute("PhysicalOp") + " on " + table + " " + o.getAttribute("Index")
                                    + " alias " + o.getAttribute("Alias") + " in: " + statement);
                        }
                    }
                }
            }
        }
        return out;
    }

    @Test
    void aClaimOverThreeQueuesLocksOnlyTheRowsItTakes() throws Exception {
        JdbcStores store = database.start();
        pending("lock-a", 50, 2);
        pending("lock-b", 50, 1);
        pending("lock-c", 50, 0);
        try (Connection c = TestDb.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Params p = Params.of().str("claimers", "[{\"n\":0,\"worker_id\":\"locks\",\"lease_seconds\":null,\"lo\":0,\"hi\":10}]")
                    .str("queues", null).str("types", null).str("locked_queues", "[]")
                    .bool("prelude", true).integer("limit", 10).integer("default_lease_seconds", 30)
                    .str("modified_by", null);
            int claimed = store.sql().query(c, Stmt.JOB_CLAIM, p, (rs, cols) -> 1).size();
            assertEquals(10, claimed);
            long rowLocks = 0;
            long claimIndexLocks = 0;
            String report;
            try (PreparedStatement ps = c.prepareStatement("SELECT i.name, COUNT(*) FROM sys.dm_tran_locks AS l "
                    + "INNER JOIN sys.partitions AS p ON l.resource_associated_entity_id = p.hobt_id "
                    + "INNER JOIN sys.indexes AS i ON i.object_id = p.object_id AND i.index_id = p.index_id "
                    + "WHERE l.request_session_id = @@SPID AND l.resource_type = 'KEY' "
                    + "AND p.object_id = OBJECT_ID(N'readpast_job') GROUP BY i.name");
                 ResultSet rs = ps.executeQuery()) {
                StringBuilder b = new StringBuilder();
                while (rs.next()) {
                    b.append(rs.getString(1)).append('=').append(rs.getLong(2)).append(' ');
                    if ("pk_readpast_job".equals(rs.getString(1))) {
                        rowLocks = rs.getLong(2);
                    }
                    if ("ix_readpast_job_claim".equals(rs.getString(1))) {
                        claimIndexLocks = rs.getLong(2);
                    }
                }
                report = b.toString();
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT CAST(DATABASEPROPERTYEX(DB_NAME(), "
                    + "'IsOptimizedLockingOn') AS int), d.is_read_committed_snapshot_on FROM sys.databases AS d "
                    + "WHERE d.name = DB_NAME()");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                System.out.printf("claim of 10 over 3 queues: KEY locks %s(optimized locking %s, RCSI %s)%n", report,
                        rs.getObject(1), rs.getBoolean(2));
            }
            c.rollback();
            assertEquals(10, rowLocks, "row locks of the claim: exactly the rows it took (" + report + ")");
            assertTrue(claimIndexLocks <= 10, "claim-index keys locked: at most the rows taken (" + report + ")");
        }
    }
}
