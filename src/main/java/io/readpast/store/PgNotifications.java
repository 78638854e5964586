package io.readpast.store;

import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * PostgreSQL LISTEN/NOTIFY between broker instances: one dedicated connection per instance
 * listens on channel {@code readpast_jobs} (it sends nothing while idle); announcements are
 * coalesced per queue and sent at most every 10 ms, the first one at once. Payload lines:
 * the sender's instance id, then {@code queue TAB count} per queue with new claimable jobs, and
 * {@code queue TAB due:epochMillis} per queue with a job coming due then (the earliest; a
 * past time: look now).
 */
public final class PgNotifications implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(PgNotifications.class);
    static final String CHANNEL = "readpast_jobs";
    private static final String NOTIFY_SQL = "SELECT pg_notify(?, ?)";
    private static final long GAP_MS = 10;

    private final String instance = UUID.randomUUID().toString();
    private final DataSource pool;
    private final String url;
    private final Properties credentials;
    private final BiConsumer<String, Integer> onReceive;
    private final BiConsumer<String, java.time.Instant> onDue;
    private final Runnable onReconnect;
    private final Map<String, Integer> pending = new ConcurrentHashMap<>();
    private final Map<String, Long> pendingDue = new ConcurrentHashMap<>();
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final ScheduledExecutorService sender = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("readpast-notify").factory());
    private volatile boolean running = true;
    private volatile long lastFlushMs;
    private final Thread listener;

    public PgNotifications(DataSource pool, String url, String user, String password,
                           BiConsumer<String, Integer> onReceive, BiConsumer<String, java.time.Instant> onDue,
                           Runnable onReconnect) {
        this.pool = pool;
        this.url = url;
        this.credentials = new Properties();
        if (user != null) {
            credentials.setProperty("user", user);
        }
        if (password != null) {
            credentials.setProperty("password", password);
        }
        this.onReceive = onReceive;
        this.onDue = onDue;
        this.onReconnect = onReconnect;
        this.listener = Thread.ofVirtual().name("readpast-listen").start(this::listen);
    }

    /** Queues an announcement for the other instances. */
    public void send(String queue, int count) {
        pending.merge(queue, count, (a, b) -> (int) Math.min(Integer.MAX_VALUE, (long) a + b));
        scheduleFlush();
    }

    /** Queues a due-time note for the other instances: a job of {@code queue} comes due at {@code dueAt}. */
    public void sendDue(String queue, java.time.Instant dueAt) {
        pendingDue.merge(queue, dueAt.toEpochMilli(), Math::min);
        scheduleFlush();
    }

    private void scheduleFlush() {
        if (flushScheduled.compareAndSet(false, true)) {
            long wait = Math.max(0, lastFlushMs + GAP_MS - System.currentTimeMillis());
            sender.schedule(this::flush, wait, TimeUnit.MILLISECONDS);
        }
    }

    private void flush() {
        flushScheduled.set(false);
        lastFlushMs = System.currentTimeMillis();
        StringBuilder payload = new StringBuilder(instance);
        for (String queue : pending.keySet()) {
            Integer n = pending.remove(queue);
            if (n == null) {
                continue;
            }
            if (payload.length() + queue.length() > 7000) {
                notify(payload.toString());
                payload = new StringBuilder(instance);
            }
            payload.append('\n').append(queue).append('\t').append(n);
        }
        for (String queue : pendingDue.keySet()) {
            Long at = pendingDue.remove(queue);
            if (at == null) {
                continue;
            }
            if (payload.length() + queue.length() > 7000) {
                notify(payload.toString());
                payload = new StringBuilder(instance);
            }
            payload.append('\n').append(queue).append("\tdue:").append(at);
        }
        if (payload.length() > instance.length()) {
            notify(payload.toString());
        }
        if ((!pending.isEmpty() || !pendingDue.isEmpty()) && flushScheduled.compareAndSet(false, true)) {
            sender.schedule(this::flush, GAP_MS, TimeUnit.MILLISECONDS);
        }
    }

    private void notify(String payload) {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(NOTIFY_SQL)) {
            c.setAutoCommit(true);
            ps.setString(1, CHANNEL);
            ps.setString(2, payload);
            ps.execute();
        } catch (SQLException e) {
            LOG.debugf("NOTIFY failed (other instances will find the work by polling): %s", e.getMessage());
        }
    }

    private void listen() {
        long backoffMs = 250;
        while (running) {
            try (Connection c = DriverManager.getConnection(url, credentials); Statement s = c.createStatement()) {
                s.execute("LISTEN " + CHANNEL);
                backoffMs = 250;
                onReconnect.run();
                PGConnection pg = c.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] batch = pg.getNotifications(1000);
                    if (batch == null) {
                        continue;
                    }
                    for (PGNotification n : batch) {
                        receive(n.getParameter());
                    }
                }
            } catch (SQLException e) {
                if (!running) {
                    return;
                }
                LOG.debugf("LISTEN connection lost, reconnecting: %s", e.getMessage());
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    return;
                }
                backoffMs = Math.min(5000, backoffMs * 2);
            }
        }
    }

    private void receive(String payload) {
        String[] lines = payload.split("\n");
        if (lines.length == 0 || lines[0].equals(instance)) {
            return;
        }
        for (int i = 1; i < lines.length; i++) {
            int tab = lines[i].lastIndexOf('\t');
            if (tab > 0) {
                String queue = lines[i].substring(0, tab);
                String value = lines[i].substring(tab + 1);
                try {
                    if (value.startsWith("due:")) {
                        onDue.accept(queue, java.time.Instant.ofEpochMilli(Long.parseLong(value.substring(4))));
                    } else {
                        onReceive.accept(queue, Integer.parseInt(value));
                    }
                } catch (NumberFormatException ignored) {
                    // not ours
                }
            }
        }
    }

    @Override
    public void close() {
        running = false;
        listener.interrupt();
        sender.shutdownNow();
    }
}
