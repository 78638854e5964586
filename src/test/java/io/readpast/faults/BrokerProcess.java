package io.readpast.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One broker, run as its own process from the packaged jar ({@code -Dreadpast.jar}, set by the
 * faults Maven profile), on a free port, against {@link FaultDb}, its output in
 * {@code target/faults-logs/}. Every started process is also killed by a JVM shutdown hook, so
 * none outlives the test run.
 */
final class BrokerProcess {

    static final Path BASEDIR = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    static final Path LOGS = BASEDIR.resolve("target").resolve("faults-logs");

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
    }

    final String name;
    final int port;
    final URI base;
    final Path log;
    private final Process process;

    private BrokerProcess(String name, int port, Path log, Process process) {
        this.name = name;
        this.port = port;
        this.base = URI.create("http://127.0.0.1:" + port + "/");
        this.log = log;
        this.process = process;
    }

    static Path jar() {
        Path jar = Path.of(System.getProperty("readpast.jar",
                BASEDIR.resolve("target/quarkus-app/quarkus-run.jar").toString()));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No broker jar at " + jar + ": run ./mvnw verify -Pfaults (it packages first)");
        }
        return jar;
    }

    /** Starts the process; it is not ready yet (see {@link Brokers}). */
    static BrokerProcess start(String name) {
        return start(name, Map.of(), BASEDIR);
    }

    /**
     * Starts the process in {@code workdir} with {@code envOverrides} applied last (a variable
     * mapped to the empty string is removed); it is not ready yet.
     */
    static BrokerProcess start(String name, Map<String, String> envOverrides, Path workdir) {
        int port = freePort();
        Path log = LOGS.resolve(name + "-" + port + ".log");
        try {
            Files.createDirectories(LOGS);
            List<String> cmd = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx384m", "-XX:+UseSerialGC",
                    "-jar", jar().toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .directory(workdir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            Map<String, String> env = pb.environment();
            env.remove("QUARKUS_PROFILE");
            env.put("READPAST_DB_URL", FaultDb.URL);
            env.put("READPAST_DB_USERNAME", FaultDb.USER);
            if (!FaultDb.PASSWORD.isEmpty()) {
                env.put("READPAST_DB_PASSWORD", FaultDb.PASSWORD);
            }
            env.put("READPAST_AUTH_ENABLED", "false");
            env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
            env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
            envOverrides.forEach((k, v) -> {
                if (v.isEmpty()) {
                    env.remove(k);
                } else {
                    env.put(k, v);
                }
            });
            Process p = pb.start();
            LIVE.add(p);
            return new BrokerProcess(name, port, log, p);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start broker " + name, e);
        }
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The exit status of a process that has ended. */
    int exitCode() {
        LIVE.remove(process);
        return process.exitValue();
    }

    long pid() {
        return process.pid();
    }

    /** A graceful stop (SIGTERM): shutdown hooks run, e.g. the embedded PostgreSQL stops. */
    void stop() {
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            LIVE.remove(process);
        }
    }

    /** kill -9: no shutdown hooks, no graceful close of connections or requests. */
    int kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Broker " + name + " (pid " + process.pid() + ") did not die");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            LIVE.remove(process);
        }
        return process.exitValue();
    }

    /** True when GET /q/health/ready answers 200; false for any other answer or no answer. */
    boolean ready(Api api) {
        return readyStatus(api) == 200;
    }

    /** Status of GET /q/health/ready, or -1 when the broker does not answer. */
    int readyStatus(Api api) {
        try {
            return api.get(base, "q/health/ready", Duration.ofSeconds(5)).status();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The last lines of this broker's output, for failure messages. */
    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Lines of this broker's output that contain the given text. */
    List<String> logLines(String contains) {
        try {
            return Files.readAllLines(log, StandardCharsets.UTF_8).stream().filter(l -> l.contains(contains)).toList();
        } catch (IOException e) {
            return List.of("(no log: " + e + ")");
        }
    }

    @Override
    public String toString() {
        return name + "@" + port + " (pid " + process.pid() + ")";
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
