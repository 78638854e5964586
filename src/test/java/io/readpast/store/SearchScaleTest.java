package io.readpast.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Search stays cheap at scale and off the claim path: over 1,000,000 archived jobs, GET /jobs
 * with a filter an index serves (a queue, a batch; with more filters on top) answers the right
 * jobs, and the statement as the broker runs it (job_list, EXPLAIN ANALYZE with its bound
 * values) reads a bounded number of pages, however many jobs the archive holds; an unfiltered
 * first page too. PostgreSQL only: the SQL Server twin is covered by the plan test of the
 * SQL-Server-only suite when one is given.
 */
@QuarkusTest
class SearchScaleTest {

    private static final int ARCHIVED = 1_000_000;
    /** Pages a bounded search may touch: the index descent and the matching rows' pages, with room. */
    private static final long BOUND = 400;

    @AfterEach
    void clean() throws Exception {
        if (TestDb.engine() == Engine.POSTGRESQL) {
            try (Connection c = TestDb.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("TRUNCATE readpast_job_archive");
            }
            TestDb.clean();
        }
    }

    @Test
    void aSelectiveSearchOverAMillionArchivedJobsReadsBoundedPages() throws Exception {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL,
                "EXPLAIN (ANALYZE, BUFFERS) is PostgreSQL's; SQL Server's plans are checked where one is given");
        TestDb.clean();
        try (Connection c = TestDb.dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            // one in 100,000 is of the rare queue (10 jobs, spread over the whole id range; every other
            // one failed with a timeout), one in 50,000 of batch 77 (20 jobs); the rest are of 50 busy queues
            s.execute("INSERT INTO readpast_job_archive (id, queue, type, payload, priority, status, attempt, "
                    + "max_attempts, due_at, created_at, updated_at, finished_at, last_error, batch_id) "
                    + "SELECT g, CASE WHEN g % 100000 = 7 THEN 'search-rare' ELSE 'busy-' || (g % 50) END, 't', "
                    + "'{\"customer\":\"c' || (g % 1000) || '\"}', 0, CASE WHEN g % 10 = 0 THEN 5 ELSE 3 END, 1, 5, "
                    + "now(), now(), now(), now(), CASE WHEN g % 100000 = 7 AND (g / 100000) % 2 = 1 THEN 'read timeout' END, "
                    + "CASE WHEN g % 50000 = 3 THEN 77 END "
                    + "FROM generate_series(1, " + ARCHIVED + ") AS g");
            s.execute("ANALYZE readpast_job_archive");
        }

        List<String> rare = given().get("/jobs?queue=search-rare&limit=50").then().statusCode(200).extract()
                .jsonPath().getList("jobs.id");
        assertEquals(10, rare.size(), "the rare queue's ten jobs");
        assertEquals(20, given().get("/jobs?batch=77&limit=50").then().statusCode(200).extract().jsonPath()
                .getList("jobs").size());
        assertEquals(List.of("900007", "700007", "500007", "300007", "100007"),
                given().get("/jobs?queue=search-rare&error=timeout").then().statusCode(200).extract().jsonPath()
                        .getList("jobs.id"));

        long queue = pagesRead(Params.of().str("queue", "search-rare"));
        long batch = pagesRead(Params.of().lng("batch_id", 77L));
        long more = pagesRead(Params.of().str("queue", "search-rare").str("error", "timeout").str("statuses", "[3]")
                .str("payload", "{\"customer\":\"c7\"}"));
        long first = pagesRead(Params.of());
        for (long pages : new long[] {queue, batch, more, first}) {
            assertTrue(pages <= BOUND, "a bounded search reads at most " + BOUND + " pages: queue " + queue
                    + ", batch " + batch + ", queue and more " + more + ", first page " + first);
        }
    }

    /** Shared pages (hit and read) job_list touches with these filters, the rest NULL, a page of 50. */
    private static long pagesRead(Params given) throws Exception {
        SqlStatement stmt = StatementCatalog.load(Engine.POSTGRESQL).get(Stmt.JOB_LIST);
        try (Connection c = TestDb.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + stmt.jdbcSql())) {
            int i = 1;
            for (String name : stmt.parameterOrder()) {
                Params.Value v = given.get(name);
                if (name.equals("limit")) {
                    ps.setInt(i++, 50);
                } else if (v == null) {
                    ps.setNull(i++, java.sql.Types.VARCHAR);
                } else if (v.value() instanceof String text) {
                    ps.setString(i++, text);
                } else {
                    ps.setLong(i++, (Long) v.value());
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                JsonNode plan = new ObjectMapper().readTree(rs.getString(1)).get(0).get("Plan");
                return plan.get("Shared Hit Blocks").asLong() + plan.get("Shared Read Blocks").asLong();
            }
        }
    }
}
