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
        // initdb wants an empty directory: a new one is locked once its server runs
        boolean initialized = Files.exists(dataDir.resolve("PG_VERSION"));
        if (initialized) {
            lockDataDir(dataDir);
            reclaimOrphan(dataDir);
        }
        server = builder(dataDir, port(), durable).start();
        if (!initialized) {
            lockDataDir(dataDir);
        }
    }

    /** Why the embedded PostgreSQL cannot start in its data directory, said in one line. */
    public static final class DataDirectoryInUse extends IOException {
        DataDirectoryInUse(String message) {
            super(message);
        }
    }

    /** Held for the life of this JVM: the broker's claim on its data directory. */
    private static java.nio.channels.FileChannel lockChannel;

    /**
     * Takes {@code readpast.lock} in the data directory, an OS file lock that dies with the
     * process (kill -9 too), and writes this process's PID into it. Held by another process: a
     * live broker uses the directory, and the start fails naming it.
     */
    private static void lockDataDir(Path dataDir) throws IOException {
        Path file = dataDir.resolve("readpast.lock");
        java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE);
        java.nio.channels.FileLock lock = ch.tryLock();
        if (lock == null) {
            ch.close();
            String holder = Files.readString(file).strip();
            throw new DataDirectoryInUse("another broker (PID " + (holder.isEmpty() ? "unknown" : holder) + ") uses "
                    + dataDir.toAbsolutePath() + " and its embedded PostgreSQL; stop it, or give this broker its own "
                    + "READPAST_DATA_DIR");
        }
        ch.truncate(0);
        ch.write(java.nio.ByteBuffer.wrap((ProcessHandle.current().pid() + "\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        ch.force(true);
        lockChannel = ch;
    }

    /**
     * A broker killed with {@code kill -9} leaves its embedded PostgreSQL running (pg_ctl starts
     * it detached), holding the data directory ({@code postmaster.pid}); every later start would
     * fail on that lock. Called with {@code readpast.lock} held, so no live broker owns the
     * directory: a PostgreSQL still running in it is an orphan and is stopped (SIGTERM,
     * PostgreSQL's smart shutdown: its clients died with their broker). A stale file (its PID
     * gone) is PostgreSQL's to replace; a PID that is not a PostgreSQL of this directory is named
     * in the error.
     */
    static void reclaimOrphan(Path dataDir) throws IOException {
        Path pidFile = dataDir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        java.util.List<String> lines = Files.readAllLines(pidFile);
        if (lines.size() < 2) {
            return;
        }
        long pid;
        try {
            pid = Long.parseLong(lines.get(0).strip());
        } catch (NumberFormatException e) {
            return;
        }
        java.util.Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return;
        }
        ProcessHandle postgres = handle.get();
        boolean sameDir;
        try {
            sameDir = Files.isSameFile(Path.of(lines.get(1).strip()), dataDir);
        } catch (IOException | java.nio.file.InvalidPathException e) {
            sameDir = false;
        }
        String command = postgres.info().command().orElse("");
        if (!sameDir || !command.endsWith("postgres")) {
            throw new DataDirectoryInUse(pidFile.toAbsolutePath() + " names PID " + pid + " (" + command
                    + "), which is not a PostgreSQL of this directory; if no PostgreSQL runs on "
                    + dataDir.toAbsolutePath() + ", delete that file");
        }
        org.jboss.logging.Logger.getLogger(EmbeddedDatabase.class).warnf("The embedded PostgreSQL of %s still runs "
                + "(PID %d) without its broker (killed?): stopping it before starting again", dataDir.toAbsolutePath(), pid);
        postgres.destroy();
        try {
            postgres.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new DataDirectoryInUse("the orphaned embedded PostgreSQL (PID " + pid + ") on "
                    + dataDir.toAbsolutePath() + " did not stop within 60 s; stop it (kill " + pid + ") and start again");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while the orphaned PostgreSQL " + pid + " stopped");
        }
    }
}
