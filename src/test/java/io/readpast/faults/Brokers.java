package io.readpast.faults;

import org.awaitility.core.ConditionTimeoutException;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/** A set of broker processes on one database; closing it kills every one still running. */
final class Brokers implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    final List<BrokerProcess> all = new ArrayList<>();
    final Api api = new Api();

    /**
     * Starts {@code n} brokers named {@code <prefix>-<i>} and waits until each answers ready. On a
     * fresh database the first one runs the migrations alone before the others start.
     */
    static Brokers start(String prefix, int n) {
        return start(prefix, n, java.util.Map.of());
    }

    /** As {@link #start(String, int)}, every broker with these environment variables added. */
    static Brokers start(String prefix, int n, java.util.Map<String, String> env) {
        FaultDb.ensureDatabase();
        Brokers b = new Brokers();
        try {
            int i = 0;
            if (!FaultDb.schemaExists()) {
                b.all.add(BrokerProcess.start(prefix + "-" + i++, env, BrokerProcess.BASEDIR));
                b.awaitReady();
            }
            for (; i < n; i++) {
                b.all.add(BrokerProcess.start(prefix + "-" + i, env, BrokerProcess.BASEDIR));
            }
            b.awaitReady();
            return b;
        } catch (RuntimeException | Error e) {
            b.close();
            throw e;
        }
    }

    private void awaitReady() {
        try {
            await("brokers ready").atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(250)).until(() -> {
                boolean allReady = true;
                for (BrokerProcess p : all) {
                    if (!p.alive()) {
                        throw new AssertionError("Broker " + p + " exited during start-up; log " + p.log + ":\n"
                                + p.logTail(30));
                    }
                    allReady &= p.ready(api);
                }
                return allReady;
            });
        } catch (ConditionTimeoutException e) {
            StringBuilder sb = new StringBuilder("Brokers not ready within " + START_TIMEOUT);
            all.forEach(p -> sb.append("\n--- ").append(p).append(":\n").append(p.logTail(20)));
            throw new AssertionError(sb.toString(), e);
        }
    }

    BrokerProcess get(int i) {
        return all.get(i);
    }

    URI uri(int i) {
        return all.get(i).base;
    }

    int size() {
        return all.size();
    }

    @Override
    public void close() {
        for (BrokerProcess p : all) {
            if (p.alive()) {
                p.kill();
            }
        }
    }
}
