package io.readpast.store;

import io.readpast.store.jdbc.JdbcStores;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.TestDb;
import io.readpast.config.Engine;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The two levers of the claim path that live in the store: on PostgreSQL the hot statements
 * reuse one generic plan (set for their own transaction only), and no more claim statements run
 * at once than readpast.db.claim-concurrency allows.
 */
@QuarkusTest
class HotStatementTest {

    private static final List<Stmt> HOT = List.of(Stmt.JOB_CLAIM, Stmt.JOB_ACK_CLAIM, Stmt.JOB_COMPLETE_MANY, Stmt.JOB_COMPLETE_ROWS, Stmt.JOB_RELEASE_MANY, Stmt.JOB_RETRY_MANY,
            Stmt.JOB_INSERT_MANY, Stmt.JOB_INSERT, Stmt.JOB_HEARTBEAT_MANY, Stmt.JOB_CLAIM_FAIR);

    @Inject
    Database database;

    @Test
    void onlyPostgresqlHotStatementsCarryTheGenericPlanPreamble() {
        StatementCatalog pg = StatementCatalog.load(Engine.POSTGRESQL);
        StatementCatalog ms = StatementCatalog.load(Engine.SQLSERVER);
        for (Stmt stmt : Stmt.values()) {
            SqlStatement p = pg.get(stmt);
            boolean hot = HOT.contains(stmt);
            assertEquals(hot, p.genericPlan(), stmt + " generic-plan line");
            assertEquals(hot ? 1 : 0, p.leadingResults(), stmt + " results before its own");
            assertEquals(hot, p.jdbcSql().startsWith(StatementCatalog.PG_GENERIC_PLAN), stmt + " preamble");
            assertEquals(0, ms.get(stmt).leadingResults(), stmt + " on SQL Server");
            assertFalse(ms.get(stmt).jdbcSql().contains("set_config"), stmt + " on SQL Server");
        }
    }

    @Test
    void theClaimReusesOneGenericPlanAndLeavesTheSessionSettingAlone() throws Exception {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "plan_cache_mode is PostgreSQL's");
        JdbcStores store = database.start();
        try (Connection c = database.dataSource().getConnection()) {
            c.setAutoCommit(true);
            String before = setting(c);
            int claimed = 0;
            // pgjdbc prepares a statement on the server from its fifth execution on a connection
            for (int i = 0; i < 10; i++) {
                claimed += store.sql().query(c, Stmt.JOB_CLAIM, Params.of()
                        .str("claimers", "[{\"n\":0,\"worker_id\":\"plan-test\",\"lease_seconds\":null,\"lo\":0,\"hi\":50}]")
                        .str("queues", "[\"plan-test-no-such-queue\"]")
                        .str("types", null)
                        .str("locked_queues", "[]")
                        .bool("prelude", true)
                        .integer("limit", 50)
                        .integer("default_lease_seconds", 30)
                        .str("modified_by", null), (rs, cols) -> 1).size();
                assertEquals(before, setting(c), "the setting is the transaction's only");
            }
            assertEquals(0, claimed);
            long generic = 0;
            long custom = 0;
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                         + "WHERE statement LIKE '%SKIP LOCKED%' AND statement LIKE '%lease_expires_at%' "
                         // job_claim's alone, not job_claim_fair's (which other tests may have prepared here)
                         + "AND statement NOT LIKE '%fair_cursor%'")) {
                while (rs.next()) {
                    generic += rs.getLong(1);
                    custom += rs.getLong(2);
                }
            }
            assertTrue(generic >= 5, "the prepared claim ran with its generic plan: " + generic);
            assertEquals(0, custom, "and was never planned again for its values");
        }
    }

    @Test
    void theBrokersConnectionsNeverJitCompile() throws Exception {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "JIT compilation is PostgreSQL's");
        database.start();
        try (Connection c = database.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL jit = on");
                // true only with jit on and a JIT provider installed
                assumeTrue(jitAvailable(c), "this PostgreSQL server has no JIT provider (pg_jit_available() is false)");
                assertTrue(jitCompiled(c), "the probe, costed above jit_above_cost, is JIT-compiled where JIT is on");
            } finally {
                c.rollback();
            }
            c.setAutoCommit(true);
            // a one-key fair claim was costed this high and spent seconds compiling on every run
            assertFalse(jitCompiled(c), "a broker connection runs the same probe without JIT");
        }
    }

    /**
     * Fair queues cost plain queues nothing: the generic plans of the plain claim and of
     * ack-and-claim, as the broker runs them, read pending jobs through readpast_job_claim and
     * touch no structure of fairness (the keyed index, the per-key windows, the fair cursor).
     */
    @Test
    void aPlainClaimsPlanReadsNothingOfFairness() throws Exception {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "the plans are PostgreSQL's (SQL Server's claim takes its fair queues apart too)");
        database.start();
        try (Connection c = database.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                // the plan a broker gets depends on the hot table's statistics: plan against a
                // table shaped like a deployment's (20 queues of 1,000 pending jobs, 2,000 leased),
                // not against whatever the suite's earlier tests left behind (a few dozen rows,
                // where any index is as good as another and the planner picks any); rolled back
                s.execute("INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at, priority) "
                        + "SELECT 'plan-q' || (g % 20), 't', '{}', 3, now() - make_interval(secs => g % 600), g % 3 "
                        + "FROM generate_series(1, 20000) AS g");
                s.execute("INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at, status, lease_id, "
                        + "lease_expires_at, worker_id) SELECT 'plan-q' || (g % 20), 't', '{}', 3, now(), 1, "
                        + "gen_random_uuid(), now() + interval '30 seconds', 'w' FROM generate_series(1, 2000) AS g");
                s.execute("ANALYZE readpast_job");
                s.execute("SET LOCAL plan_cache_mode = force_generic_plan");
                for (String file : List.of("job_claim.sql", "job_ack_claim.sql")) {
                    String plan = genericPlan(s, file, java.util.Map.of(
                            "claimers", "'[{\"n\":0,\"worker_id\":\"plan-test\",\"lease_seconds\":null,\"lo\":0,\"hi\":200}]'",
                            "queues", "'[\"plan-plain\"]'", "types", "NULL", "locked_queues", "'[]'", "limit", "200",
                            "default_lease_seconds", "30", "modified_by", "NULL", "items", "'[]'", "linked", "false"));
                    java.util.Set<String> indexes = named(plan, "Index Name");
                    java.util.Set<String> relations = named(plan, "Relation Name");
                    assertTrue(indexes.contains("readpast_job_claim"), file + " reads pending jobs by the claim index: " + indexes);
                    assertTrue(indexes.stream().noneMatch(i -> i.contains("fair")), file + " reads no fairness index: " + indexes);
                    assertFalse(relations.contains("readpast_key_rate"), file + " reads no per-key window: " + relations);
                    assertFalse(plan.contains("fair_cursor") || plan.contains("fairness_key"),
                            file + " reads no key and no cursor: no condition on them");
                }
            } finally {
                c.rollback();
                c.setAutoCommit(true);
                // ANALYZE wrote the table's size in place (not undone by the rollback): measure
                // what the table really holds again, and drop the rolled-back rows' versions
                try (Statement s = c.createStatement()) {
                    s.execute("VACUUM ANALYZE readpast_job");
                }
            }
        }
    }

    /** EXPLAIN (FORMAT JSON) of a statement file's own statement, prepared with its :names as parameters. */
    private static String genericPlan(Statement s, String file, java.util.Map<String, String> values) throws Exception {
        // the file's own statement: its fragments in place, but for the promotion (a statement
        // of its own, sent ahead in the same round trip), and no comment lines
        String text = StatementCatalog.expandedText(Engine.POSTGRESQL, file, java.util.Set.of("promote_due.sql")).lines().filter(l -> !l.strip().startsWith("--"))
                .reduce("", (a, b) -> a + b + "\n");
        List<String> names = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?<![:\\w]):([A-Za-z_]\\w*)").matcher(text);
        StringBuilder sql = new StringBuilder();
        while (m.find()) {
            if (!names.contains(m.group(1))) {
                names.add(m.group(1));
            }
            m.appendReplacement(sql, "\\$" + (names.indexOf(m.group(1)) + 1));
        }
        m.appendTail(sql);
        String name = "plan_" + file.replace(".sql", "");
        s.execute("PREPARE " + name + " AS " + sql);
        List<String> args = new ArrayList<>();
        for (String n : names) {
            args.add(java.util.Objects.requireNonNull(values.get(n), "a value for :" + n));
        }
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = s.executeQuery("EXPLAIN (FORMAT JSON) EXECUTE " + name + "(" + String.join(", ", args) + ")")) {
            while (rs.next()) {
                plan.append(rs.getString(1));
            }
        }
        s.execute("DEALLOCATE " + name);
        return plan.toString();
    }

    /** The values of a plan's "field": "value" pairs. */
    private static java.util.Set<String> named(String plan, String field) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + field + "\": \"([^\"]+)\"").matcher(plan);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static boolean jitAvailable(Connection c) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_jit_available()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** Whether PostgreSQL would JIT-compile a statement its planner costs far above jit_above_cost (planned, not run). */
    private static boolean jitCompiled(Connection c) throws Exception {
        StringBuilder plan = new StringBuilder();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "EXPLAIN (FORMAT JSON) SELECT count(*) FROM generate_series(1, 100000) AS a "
                        + "CROSS JOIN generate_series(1, 1000) AS b WHERE a + b > 3")) {
            while (rs.next()) {
                plan.append(rs.getString(1));
            }
        }
        return plan.toString().contains("\"JIT\"");
    }

    @Test
    void noMoreClaimsRunAtOnceThanTheGateAllows() throws Exception {
        database.start();
        AtomicInteger open = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        javax.sql.DataSource counting = countingDataSource(database.dataSource(), open, most);
        StatementCatalog catalog = StatementCatalog.load(TestDb.engine());
        JdbcStores gated = new JdbcStores(counting, database.dialect(), catalog, 2);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        gated.jobs().jobClaim(new ClaimParams("gate-test", List.of("gate-test-no-such-queue"), 10, null, 30, null));
                    }
                }));
            }
            for (Future<?> f : runs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(most.get() >= 1, "claims ran");
        assertTrue(most.get() <= 2, "at most 2 claim statements at once, saw " + most.get());
        assertEquals(0, open.get());
    }

    private static String setting(Connection c) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_setting('plan_cache_mode')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * A claim statement: it leases rows (sets lease_expires_at) that it reads skipping locked ones
     * (SKIP LOCKED on PostgreSQL, READPAST on SQL Server, where other reads skip locked rows too).
     */
    private static boolean isClaim(String sql) {
        return sql.contains("lease_expires_at") && (sql.contains("SKIP LOCKED") || sql.contains("READPAST"));
    }

    /** A pool view that counts the claim statements executing at once. */
    private static javax.sql.DataSource countingDataSource(javax.sql.DataSource real, AtomicInteger open, AtomicInteger most) {
        ClassLoader cl = HotStatementTest.class.getClassLoader();
        return (javax.sql.DataSource) Proxy.newProxyInstance(cl, new Class<?>[] {javax.sql.DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(method, real, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection c = (Connection) result;
                    return Proxy.newProxyInstance(cl, new Class<?>[] {Connection.class}, (p, m, a) -> {
                        Object r = invoke(m, c, a);
                        if (!m.getName().equals("prepareStatement") || !isClaim((String) a[0])) {
                            return r;
                        }
                        java.sql.PreparedStatement ps = (java.sql.PreparedStatement) r;
                        return Proxy.newProxyInstance(cl, new Class<?>[] {java.sql.PreparedStatement.class}, (q, m2, a2) -> {
                            if (!m2.getName().startsWith("execute")) {
                                return invoke(m2, ps, a2);
                            }
                            most.accumulateAndGet(open.incrementAndGet(), Math::max);
                            try {
                                return invoke(m2, ps, a2);
                            } finally {
                                open.decrementAndGet();
                            }
                        });
                    });
                });
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
