package driver;

import static driver.kit.Opts.die;
import static driver.kit.Opts.intOpt;
import static driver.kit.Opts.req;

import driver.kit.Cpu;
import driver.kit.Http;
import driver.kit.Jdbc;
import driver.kit.Opts;
import driver.kit.Threads;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Mode "ceiling" (no broker): the sustained ceiling through JDBC, for an engine pgbench cannot
 * reach (SQL Server), run with '<quarkus-app>/app/*' on the classpath (the broker's classes). Each
 * of --clients connections loops job_insert_many of --batch jobs, then job_ack_claim
 * acknowledging its previous claim and claiming --batch more, for --seconds, against a
 * backlog of --backlog pending jobs in --queue, as the pgbench ceiling does. The statements
 * are the broker's own text (StatementCatalog: includes expanded, parameters bound by name,
 * PostgreSQL's generic-plan preamble), run the way the broker runs a single statement
 * (autocommit on PostgreSQL; a committed transaction on SQL Server). One line per client
 * count: RESULT sustained_ceiling runner=jdbc clients=C seconds=S jobs=N jobs_per_s=X
 * pending_end=P [pg_cpu_s=... pg_cpu_s_per_1k=... with --postmaster].
 */
final class Ceiling {
    private Ceiling() {
    }

    static io.readpast.config.Engine engine;
    static io.readpast.store.StatementCatalog catalog;
    static String jdbc;
    static String queue;

    static void run() throws Exception {
        jdbc = req("jdbc");
        engine = io.readpast.config.Engine.fromJdbcUrl(jdbc);
        if (engine == null) {
            die("--jdbc must be a jdbc:postgresql: or jdbc:sqlserver: URL");
        }
        catalog = io.readpast.store.StatementCatalog.load(engine, Opts.get("flavor"));
        queue = Opts.get("queue", "bench-ceiling");
        int batch = intOpt("batch", 200);
        int backlog = intOpt("backlog", 20000);
        int seconds = intOpt("seconds", 20);
        long postmaster = Long.parseLong(Opts.get("postmaster", "0"));
        String jobs = itemsJson(batch, intOpt("payload-bytes", 1024));
        for (String cs : Opts.get("clients", "2 4 8 16").trim().split("\\s+")) {
            int clients = Integer.parseInt(cs);
            try (java.sql.Connection c = connect()) {
                prepare(c, jobs, backlog, batch);
            }
            AtomicLong acked = new AtomicLong();
            AtomicLong calls = new AtomicLong();
            CountDownLatch ready = new CountDownLatch(clients);
            CountDownLatch go = new CountDownLatch(1);
            long[] window = new long[2];
            long pg0 = postmaster > 0 ? Cpu.pgTicks(postmaster) : 0;
            Thread timer = new Thread(() -> {
                try {
                    ready.await();
                    window[0] = System.nanoTime();
                    go.countDown();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            timer.start();
            Threads.runThreads(clients, "ceiling", i -> {
                try (java.sql.Connection c = connect()) {
                    String items = "[]";
                    ready.countDown();
                    go.await();
                    long end = window[0] + seconds * 1_000_000_000L;
                    while (System.nanoTime() < end) {
                        insertMany(c, jobs);
                        int[] n = new int[1];
                        items = ackClaim(c, items, batch, n);
                        acked.addAndGet(n[0]);
                        calls.addAndGet(2);
                    }
                    ackClaim(c, items, 0, new int[1]); // leave nothing leased
                }
            });
            window[1] = System.nanoTime();
            timer.join();
            long pg1 = postmaster > 0 ? Cpu.pgTicks(postmaster) : 0;
            double s = (window[1] - window[0]) / 1e9;
            long pending;
            try (java.sql.Connection c = connect()) {
                pending = count(c, "SELECT COUNT(*) FROM readpast_job WHERE queue = ? AND status = 0");
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "RESULT sustained_ceiling runner=jdbc clients=%d seconds=%.1f jobs=%d jobs_per_s=%.1f "
                            + "pending_end=%d statements=%d retries=%d", clients, s, acked.get(), acked.get() / s, pending,
                    calls.get(), RETRIES.getAndSet(0)));
            if (postmaster > 0) {
                double cpu = (pg1 - pg0) / (double) Cpu.HZ;
                line.append(String.format(Locale.ROOT, " pg_cpu_s=%.2f pg_cpu_s_per_1k=%.4f", cpu,
                        cpu / (acked.get() / 1000.0)));
            }
            System.out.println(line);
            System.err.println(line);
        }
    }

    static java.sql.Connection connect() throws java.sql.SQLException {
        return Jdbc.connect(jdbc, Opts.get("db-user", ""), Opts.get("db-password", ""));
    }

    /**
     * The queue emptied, its row present, then a backlog of pending jobs, as the broker inserts
     * them; on PostgreSQL then VACUUM ANALYZE, as the pgbench ceiling's fresh database gets:
     * without it, the dead row versions the previous client count left at the head of the
     * claim index slowed the next one fivefold (bench/results/round4-levers.md, section 11).
     */
    static void prepare(java.sql.Connection c, String jobs, int backlog, int batch) throws Exception {
        c.setAutoCommit(true);
        for (String sql : new String[] {"DELETE FROM readpast_job WHERE queue = ?",
                "DELETE FROM readpast_job_archive WHERE queue = ?"}) {
            try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, queue);
                ps.executeUpdate();
            }
        }
        if (count(c, "SELECT COUNT(*) FROM readpast_queue WHERE name = ?") == 0) {
            try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO readpast_queue (name) VALUES (?)")) {
                ps.setString(1, queue);
                ps.executeUpdate();
            }
        }
        for (int n = 0; n < backlog; n += batch) {
            insertMany(c, jobs);
        }
        if (engine == io.readpast.config.Engine.POSTGRESQL) {
            c.setAutoCommit(true);
            try (java.sql.Statement s = c.createStatement()) {
                s.execute("VACUUM ANALYZE readpast_job");
                s.execute("VACUUM ANALYZE readpast_job_archive");
            }
        }
    }

    static long count(java.sql.Connection c, String sql) throws java.sql.SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, queue);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static String itemsJson(int batch, int payloadBytes) throws IOException {
        String pad = "x".repeat(Math.max(0, payloadBytes - "{\"t\":1234567890123456789,\"pad\":\"\"}".length()));
        String payload = Http.JSON.writeValueAsString(Map.of("t", 1234567890123456789L, "pad", pad));
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 0; i < batch; i++) {
            Map<String, Object> m = new HashMap<>();
            m.put("queue", queue);
            m.put("type", "work");
            m.put("payload", payload);
            m.put("tags", null);
            m.put("idempotency_key", null);
            m.put("priority", 0);
            m.put("max_attempts", null);
            m.put("default_max_attempts", 5);
            m.put("run_at", null);
            m.put("delay_ms", 0);
            m.put("created_by", "bench");
            m.put("webhook_url", null);
            m.put("expires_at", null);
            items.add(m);
        }
        return Http.JSON.writeValueAsString(items);
    }

    static void insertMany(java.sql.Connection c, String jobs) throws Exception {
        run(c, io.readpast.store.Stmt.JOB_INSERT_MANY, Map.of("jobs", jobs), null);
    }

    /** Acknowledges items, claims up to limit; returns the next call's items. n[0]: jobs acked. */
    static String ackClaim(java.sql.Connection c, String items, int limit, int[] n) throws Exception {
        Map<String, Object> p = new HashMap<>();
        p.put("items", items);
        p.put("worker_id", "bench-ceiling");
        p.put("queues", Http.JSON.writeValueAsString(List.of(queue)));
        p.put("limit", limit);
        p.put("lease_seconds", 60);
        p.put("default_lease_seconds", 30);
        p.put("modified_by", "bench");
        p.put("types", null);
        // claims the broker merged into one statement (readpast.merging.claims), where the
        // statement takes them: here one claimer, this client
        p.put("claimers", limit == 0 ? "[]" : Http.JSON.writeValueAsString(List.of(Map.of("n", 1,
                "worker_id", "bench-ceiling", "lease_seconds", 60, "lo", 0, "hi", limit))));
        List<Map<String, Object>> next = new ArrayList<>();
        run(c, io.readpast.store.Stmt.JOB_ACK_CLAIM, p, rs -> {
            String acked = rs.getString("acked");
            if (acked != null) {
                n[0] = Http.JSON.readTree(acked).size();
            }
            long id = rs.getLong("id");
            if (!rs.wasNull()) {
                Map<String, Object> item = new HashMap<>();
                item.put("id", id);
                item.put("lease_id", rs.getString("lease_id"));
                item.put("result", null);
                next.add(item);
            }
        });
        return Http.JSON.writeValueAsString(next);
    }

    interface Rows {
        void row(java.sql.ResultSet rs) throws Exception;
    }

    static final AtomicLong RETRIES = new AtomicLong();

    /**
     * One statement as the broker's SqlRunner runs it: bound by name, the first result set
     * read, the rest drained; a deadlock victim or serialization failure is rolled back and
     * run again, as the broker retries a transient failure.
     */
    static void run(java.sql.Connection c, io.readpast.store.Stmt stmt, Map<String, Object> params, Rows rows)
            throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                runOnce(c, stmt, params, rows);
                return;
            } catch (java.sql.SQLException e) {
                boolean transientFailure = e.getErrorCode() == 1205 || "40001".equals(e.getSQLState())
                        || "40P01".equals(e.getSQLState());
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
                if (!transientFailure || attempt >= 5) {
                    throw e;
                }
                RETRIES.incrementAndGet();
            }
        }
    }

    static void runOnce(java.sql.Connection c, io.readpast.store.Stmt stmt, Map<String, Object> params, Rows rows)
            throws Exception {
        io.readpast.store.SqlStatement s = catalog.get(stmt);
        boolean autocommit = engine == io.readpast.config.Engine.POSTGRESQL;
        if (c.getAutoCommit() != autocommit) {
            c.setAutoCommit(autocommit);
        }
        try (java.sql.PreparedStatement ps = c.prepareStatement(s.jdbcSql())) {
            List<String> order = s.parameterOrder();
            for (int i = 0; i < order.size(); i++) {
                if (!params.containsKey(order.get(i))) {
                    die(stmt + " needs parameter " + order.get(i) + ", which the ceiling does not know");
                }
                Object v = params.get(order.get(i));
                if (v instanceof Integer k) {
                    ps.setInt(i + 1, k);
                } else {
                    ps.setString(i + 1, (String) v);
                }
            }
            boolean haveResultSet = ps.execute();
            int toSkip = s.leadingResults();
            boolean read = false;
            while (true) {
                if (haveResultSet) {
                    try (java.sql.ResultSet rs = ps.getResultSet()) {
                        if (toSkip > 0) {
                            toSkip--;
                        } else if (!read) {
                            while (rs.next()) {
                                if (rows != null) {
                                    rows.row(rs);
                                }
                            }
                            read = true;
                        }
                    }
                } else if (ps.getUpdateCount() == -1) {
                    break;
                }
                haveResultSet = ps.getMoreResults();
            }
        }
        if (!autocommit) {
            c.commit();
        }
    }
}
