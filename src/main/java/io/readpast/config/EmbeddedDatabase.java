package io.readpast.config;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The embedded PostgreSQL used when no READPAST_DB_URL is given: for trying Readpast out and
 * for the test suite, never for production. One per JVM, on a free port chosen when the
 * configuration is first read; its data directory is kept across restarts.
 */
public final class EmbeddedDatabase {

    public static final String USER = "postgres";
    private static final String PORT_PROPERTY = "readpast_embedded_port";
    /**
     * Set once the server runs. A system property, not a field: the test suite restarts Quarkus
     * in new class loaders within one JVM, and they must all share the one server.
     */
    private static final String STARTED_PROPERTY = "readpast_embedded_started";
    private static EmbeddedPostgres server;

    private EmbeddedDatabase() {
    }

    /** The JDBC URL the embedded server will listen on (the port is fixed for this JVM). */
    public static synchronized String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/postgres";
    }

    static synchronized int port() {
        String p = System.getProperty(PORT_PROPERTY);
        if (p == null) {
            try (ServerSocket s = new ServerSocket(0)) {
                p = Integer.toString(s.getLocalPort());
            } catch (IOException e) {
                throw new IllegalStateException("no free port for the embedded PostgreSQL", e);
            }
            System.setProperty(PORT_PROPERTY, p);
        }
        return Integer.parseInt(p);
    }

    /** True once the embedded server runs in this JVM. */
    public static synchronized boolean running() {
        return server != null || System.getProperty(STARTED_PROPERTY) != null;
    }

    /**
     * Starts the server (once per JVM) with its data in {@code dataDir}; {@code clean} wipes the
     * directory first (the test suite does, the broker does not); {@code durable} see {@link #builder}.
     */
    public static void start(Path dataDir, boolean clean, boolean durable) throws IOException {
        synchronized (System.class) {
            if (running()) {
                return;
            }
            startOnce(dataDir, clean, durable);
            System.setProperty(STARTED_PROPERTY, "true");
        }
    }

    /**
     * The server's settings. zonky's defaults are for throwaway test databases: fsync off (its
     * {@code -F} flag) and synchronous_commit off, so a crash of the machine can lose committed
     * jobs or corrupt the data directory. {@code durable} (the broker's default) turns both back
     * on, as PostgreSQL ships them; the later {@code -c fsync=on} overrides {@code -F}.
     */
    public static EmbeddedPostgres.Builder builder(Path dataDir, int port, boolean durable) {
        EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                .setPort(port)
                .setDataDirectory(dataDir.toAbsolutePath())
                .setCleanDataDirectory(false);
        if (durable) {
            b.setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("full_page_writes", "on");
        }
        return b;
    }

    private static void startOnce(Path dataDir, boolean clean, boolean durable) throws IOException {
        if (clean && Files.exists(dataDir)) {
            try (Stream<Path> files = Files.walk(dataDir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(f);
                }
            }
        }
        Files.createDirectories(dataDir);
        server = builder(dataDir, port(), durable).start();
    }
}
