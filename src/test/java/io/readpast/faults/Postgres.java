package io.readpast.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The local PostgreSQL cluster, stopped and started with Debian's pg_ctlcluster. The version
 * comes from READPAST_FAULTS_PG_VERSION or the one folder of /etc/postgresql; the cluster from
 * READPAST_FAULTS_PG_CLUSTER (default main).
 */
final class Postgres {

    static final String CLUSTER = FaultDb.env("READPAST_FAULTS_PG_CLUSTER", "main");

    private Postgres() {
    }

    /** Null when this machine has no pg_ctlcluster-managed cluster for the fault database. */
    static String version() {
        String v = FaultDb.env("READPAST_FAULTS_PG_VERSION", "");
        if (!v.isEmpty()) {
            return v;
        }
        Path etc = Path.of("/etc/postgresql");
        if (!Files.isDirectory(etc) || !Files.isExecutable(Path.of("/usr/bin/pg_ctlcluster"))) {
            return null;
        }
        try (Stream<Path> dirs = Files.list(etc)) {
            List<String> versions = dirs.filter(d -> Files.isDirectory(d.resolve(CLUSTER)))
                    .map(d -> d.getFileName().toString()).sorted().toList();
            return versions.size() == 1 ? versions.get(0) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether the fault database is on this machine (so stopping the local cluster stops it). */
    static boolean local() {
        return FaultDb.URL.startsWith("jdbc:postgresql://127.0.0.1") || FaultDb.URL.startsWith("jdbc:postgresql://localhost");
    }

    static void stop() {
        ctl("stop");
    }

    static void start() {
        ctl("start");
    }

    static void restart() {
        ctl("restart");
    }

    static boolean running() {
        return run("pg_ctlcluster", "--skip-systemctl-redirect", version(), CLUSTER, "status").exit == 0;
    }

    /** Starts the cluster unless it runs; other tests and CI need it. */
    static void ensureRunning() {
        if (!running()) {
            start();
        }
    }

    private static void ctl(String action) {
        Result r = run("pg_ctlcluster", "--skip-systemctl-redirect", version(), CLUSTER, action);
        if (r.exit != 0) {
            throw new IllegalStateException("pg_ctlcluster " + action + " exited " + r.exit + ": " + r.output);
        }
    }

    private record Result(int exit, String output) {
    }

    private static Result run(String... cmd) {
        try {
            Path out = Files.createTempFile("pg_ctlcluster", ".out");
            try {
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.to(out.toFile())).start();
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException(String.join(" ", cmd) + " did not finish in 120 s");
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8).strip());
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
