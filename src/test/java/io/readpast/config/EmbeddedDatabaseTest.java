package io.readpast.config;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The embedded PostgreSQL the broker starts without READPAST_DB_URL is durable by default:
 * zonky's own defaults (fsync off, synchronous_commit off) are for throwaway test data.
 */
class EmbeddedDatabaseTest {

    @TempDir
    Path dir;

    @Test
    void durableByDefaultAsPostgresShipsIt() throws Exception {
        assertEquals(Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "on"),
                settings(dir.resolve("durable"), true));
    }

    @Test
    void theThrowawayVariantIsWhatZonkyGives() throws Exception {
        // the test suite's setting; also shows that the check above can tell the two apart
        Map<String, String> fast = settings(dir.resolve("fast"), false);
        assertEquals("off", fast.get("fsync"));
        assertEquals("off", fast.get("synchronous_commit"));
    }

    private static Map<String, String> settings(Path data, boolean durable) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (EmbeddedPostgres pg = EmbeddedDatabase.builder(data, port, durable).start();
             Connection c = pg.getPostgresDatabase().getConnection();
             Statement st = c.createStatement()) {
            Map<String, String> out = new LinkedHashMap<>();
            for (String name : new String[] {"fsync", "synchronous_commit", "full_page_writes"}) {
                try (ResultSet rs = st.executeQuery("SHOW " + name)) {
                    rs.next();
                    out.put(name, rs.getString(1));
                }
            }
            return out;
        }
    }
}
