package io.readpast.faults;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The database's disk fills up under load: a broker (the packaged jar) whose database lives in a
 * tablespace on a 16 MiB tmpfs answers 503 problem+json with Retry-After (PostgreSQL's 53100,
 * "could not extend file"), never a 500; once the tmpfs is made larger it serves again by itself,
 * and every enqueue it acknowledged with a 201 is in the database. Needs root (mount) and the
 * local PostgreSQL cluster; skips elsewhere with the reason.
 */
class FullDiskIT {

    private static final Path MOUNT = Path.of("/tmp/readpast-full-disk");

    @Test
    void aFullDiskIs503AndNothingAcknowledgedIsLost() throws Exception {
        Assumptions.assumeTrue(FaultDb.isPostgres() && Postgres.local(), "needs the local PostgreSQL cluster");
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root to mount a small tmpfs");
        String admin = FaultDb.URL.replaceFirst("/[^/?;]+([?;].*)?$", "/postgres");
        String dbUrl = FaultDb.URL.replaceFirst("/[^/?;]+([?;].*)?$", "/readpast_full");
        Files.createDirectories(MOUNT);
        run("umount", MOUNT.toString());
        Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", MOUNT.toString()) == 0,
                "mount -t tmpfs failed (no privilege here)");
        run("chown", "postgres:postgres", MOUNT.toString());
        BrokerProcess broker = null;
        try {
            sql(admin, "DROP DATABASE IF EXISTS readpast_full", "DROP TABLESPACE IF EXISTS readpast_full",
                    "CREATE TABLESPACE readpast_full LOCATION '" + MOUNT + "'",
                    "CREATE DATABASE readpast_full TABLESPACE readpast_full");
            broker = BrokerProcess.start("full-disk", Map.of("READPAST_DB_URL", dbUrl), BrokerProcess.BASEDIR);
            Api api = new Api();
            BrokerProcess b = broker;
            await("broker ready").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300))
                    .until(() -> {
                        assertTrue(b.alive(), () -> b.logTail(30));
                        return b.ready(api);
                    });
            Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
            AtomicInteger unavailable = new AtomicInteger();
            AtomicInteger other = new AtomicInteger();
            List<String> others = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean roomAgain = new AtomicBoolean();
            // random text: PostgreSQL compresses a repeated one to nothing
            java.util.function.Supplier<String> filler = () -> {
                byte[] random = new byte[3000];
                java.util.concurrent.ThreadLocalRandom.current().nextBytes(random);
                return java.util.Base64.getEncoder().encodeToString(random);
            };
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> producers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                producers.add(pool.submit(() -> {
                    // until this producer has one 201 after the disk has room again
                    for (int i = 0; ; i++) {
                        boolean room = roomAgain.get();
                        Api.Reply r = api.post(b.base, "jobs", Map.of("queue", "full", "type", "t",
                                "payload", Map.of("filler", filler.get(), "i", i)));
                        if (r.status() == 201) {
                            acknowledged.add(Long.parseLong(r.body().get("id").asText()));
                            if (room) {
                                return null;
                            }
                        } else if (r.status() == 503 && r.retryAfter() != null
                                && r.contentType().startsWith("application/problem+json")) {
                            unavailable.incrementAndGet();
                            Thread.sleep(unavailable.get() > 40 ? 100 : 20);
                        } else {
                            other.incrementAndGet();
                            others.add(r.toString());
                        }
                    }
                }));
            }
            await("the disk is full: enqueues are answered 503").atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(200)).until(() -> unavailable.get() > 40);
            int fullAt = acknowledged.size();
            assertEquals(1, run("mount", "-o", "remount,size=128m", MOUNT.toString()) == 0 ? 1 : 0, "tmpfs grown");
            roomAgain.set(true);
            Load.join(producers, 120);
            Load.stop(pool);
            System.out.printf("full disk: %d acknowledged before it filled, %d answered 503, %d acknowledged in all%n",
                    fullAt, unavailable.get(), acknowledged.size());
            assertEquals(0, other.get(), "only 201 and 503 with Retry-After: " + others.subList(0, Math.min(3, others.size())));
            assertTrue(b.logLines("The broker failed").isEmpty(), "no 500");
            try (Connection c = DriverManager.getConnection(dbUrl, FaultDb.USER, FaultDb.PASSWORD);
                 Statement s = c.createStatement()) {
                var rs = s.executeQuery("SELECT id FROM readpast_job");
                Set<Long> stored = new java.util.HashSet<>();
                while (rs.next()) {
                    stored.add(rs.getLong(1));
                }
                assertTrue(stored.containsAll(acknowledged), "every acknowledged job is stored: "
                        + acknowledged.stream().filter(id -> !stored.contains(id)).limit(5).toList() + " missing");
            }
        } finally {
            if (broker != null) {
                broker.stop();
            }
            sql(admin, "DROP DATABASE IF EXISTS readpast_full", "DROP TABLESPACE IF EXISTS readpast_full");
            run("umount", MOUNT.toString());
        }
    }

    private static void sql(String url, String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection(url, FaultDb.USER, FaultDb.PASSWORD);
             Statement s = c.createStatement()) {
            for (String st : statements) {
                s.execute(st);
            }
        }
    }

    private static int run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }
}
