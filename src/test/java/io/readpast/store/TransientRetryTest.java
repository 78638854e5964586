package io.readpast.store;

import io.readpast.store.jdbc.JdbcStores;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.testsupport.TestDb;
import io.readpast.config.Engine;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Deadlock victims and serialization failures, raised by the real database with their real
 * SQLSTATE, are retried inside the broker with backoff; when they keep coming, the store gives
 * up with a TRANSIENT failure (answered 503, never 500).
 */
@QuarkusTest
class TransientRetryTest {

    @Inject
    Database database;

    private static void raise(java.sql.Connection c, String sqlState) throws java.sql.SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN RAISE EXCEPTION 'simulated' USING ERRCODE = '" + sqlState + "'; END $$");
        }
    }

    @Test
    void deadlockAndSerializationFailuresAreRetried() {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "raises PostgreSQL SQLSTATEs");
        JdbcStores store = database.start();
        AtomicInteger tries = new AtomicInteger();
        String result = store.sql().tx(c -> {
            int n = tries.incrementAndGet();
            if (n == 1) {
                raise(c, "40P01");   // deadlock detected
            } else if (n == 2) {
                raise(c, "40001");   // serialization failure
            }
            return "done";
        });
        assertEquals("done", result);
        assertEquals(3, tries.get());
    }

    @Test
    void persistentTransientFailuresEndAsTransientNotAsAnError() {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "raises PostgreSQL SQLSTATEs");
        JdbcStores store = database.start();
        AtomicInteger tries = new AtomicInteger();
        StoreException e = assertThrows(StoreException.class, () -> store.sql().tx(c -> {
            tries.incrementAndGet();
            raise(c, "40P01");
            return null;
        }));
        assertEquals(StoreException.Kind.TRANSIENT, e.kind());
        // retried a few times, then given up on: a request waits a bounded time, not forever
        assertTrue(tries.get() > 2 && tries.get() <= 10, "tries: " + tries.get());
    }

    @Test
    void otherErrorsAreNotRetried() {
        assumeTrue(TestDb.engine() == Engine.POSTGRESQL, "raises PostgreSQL SQLSTATEs");
        JdbcStores store = database.start();
        AtomicInteger tries = new AtomicInteger();
        StoreException e = assertThrows(StoreException.class, () -> store.sql().tx(c -> {
            tries.incrementAndGet();
            raise(c, "22012");   // division by zero: a bug, not a race
            return null;
        }));
        assertEquals(StoreException.Kind.OTHER, e.kind());
        assertEquals(1, tries.get());
    }
}
