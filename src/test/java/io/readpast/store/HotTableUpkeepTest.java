package io.readpast.store;

import io.readpast.store.jdbc.JdbcStores;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.TestDb;
import io.readpast.config.Engine;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The hot-table upkeep vacuums when the statistics count enough dead row versions, does nothing
 * below that, and stands aside while another instance holds the upkeep lock.
 */
@QuarkusTest
class HotTableUpkeepTest {

    @Inject
    Database database;

    @Test
    void vacuumsOnlyPastTheThresholdAndOneInstanceAtATime() throws Exception {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "VACUUM is PostgreSQL's");
        JdbcStores store = database.start();
        leaveDeadRows(500);
        long vacuums = vacuumCount();

        assertNull(store.maintenance().hotTableUpkeep(Long.MAX_VALUE), "far fewer dead rows than asked: nothing done");

        try (Connection other = database.dataSource().getConnection();
             PreparedStatement lock = other.prepareStatement("SELECT pg_advisory_lock(?)")) {
            other.setAutoCommit(true);
            lock.setLong(1, PostgresDialect.UPKEEP_LOCK);
            lock.execute();
            try {
                assertNull(store.maintenance().hotTableUpkeep(1), "another instance holds the upkeep: this one goes on");
            } finally {
                try (PreparedStatement unlock = other.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                    unlock.setLong(1, PostgresDialect.UPKEEP_LOCK);
                    unlock.execute();
                }
            }
        }

        // the statistics count the deletes within a second or so (and the broker's own upkeep
        // may have cleared them or hold the lock for a moment): ask until it vacuums, at most 20 s
        String done = null;
        long deadline = System.nanoTime() + 20_000_000_000L;
        for (int i = 1; done == null && System.nanoTime() < deadline; i++) {
            done = store.maintenance().hotTableUpkeep(500);
            if (done == null) {
                Thread.sleep(100);
                if (i % 20 == 0) {
                    leaveDeadRows(500);
                }
            }
        }
        assertNotNull(done, "500 dead row versions: vacuumed");
        assertTrue(done.startsWith("vacuumed readpast_job"), done);
        long after = vacuumCount();
        deadline = System.nanoTime() + 20_000_000_000L;
        while (after == vacuums && System.nanoTime() < deadline) {
            Thread.sleep(100);
            after = vacuumCount();
        }
        assertTrue(after > vacuums, "the statistics record the VACUUM");
    }

    @Test
    void theHotTablesAutovacuumIsNotThrottled() {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "autovacuum is PostgreSQL's");
        database.start();
        // V14: the per-table setting, whatever the server's autovacuum_vacuum_cost_delay
        assertEquals(1, TestDb.count("SELECT count(*) FROM pg_class WHERE relname = 'readpast_job' "
                + "AND 'autovacuum_vacuum_cost_delay=0' = ANY (reloptions)"));
        assertEquals(0, TestDb.count("SELECT count(*) FROM pg_class WHERE relname = 'readpast_job_archive' "
                + "AND reloptions IS NOT NULL"), "other tables keep the server's settings");
    }

    @Test
    void aVacuumOfTheHotTableKeepsItsEmptyTail() {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "VACUUM's truncation is PostgreSQL's");
        database.start();
        // V29: truncating the empty tail takes an ACCESS EXCLUSIVE lock that stops every claim
        assertEquals(1, TestDb.count("SELECT count(*) FROM pg_class WHERE relname = 'readpast_job' "
                + "AND 'vacuum_truncate=false' = ANY (reloptions)"));
        leaveDeadRows(5000); // the table's last pages now hold only dead rows
        long size = relationSize();
        // the broker's upkeep runs this statement; autovacuum honours the same setting
        TestDb.exec("VACUUM readpast_job");
        assertEquals(size, relationSize(), "VACUUM left the file as it was: no truncation, no exclusive lock");
        // and the room is used again: the same jobs fit without growing the file
        TestDb.exec("VACUUM readpast_job");
        leaveDeadRows(5000);
        assertEquals(size, relationSize(), "the next inserts reused the kept pages");
    }

    private static long relationSize() {
        return TestDb.count("SELECT pg_relation_size('readpast_job')");
    }

    private static void leaveDeadRows(int n) {
        TestDb.exec("INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at) "
                + "SELECT 'upkeep-test', 'noop', '{}', 1, now() FROM generate_series(1, ?)", n);
        TestDb.exec("DELETE FROM readpast_job WHERE queue = 'upkeep-test'");
    }

    private static long vacuumCount() {
        return TestDb.count("SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = to_regclass('readpast_job')");
    }
}
