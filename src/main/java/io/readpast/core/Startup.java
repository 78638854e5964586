package io.readpast.core;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.readpast.config.Engine;
import io.readpast.security.ApiKeys;
import io.readpast.store.Database;
import io.readpast.store.JobStore;
import io.readpast.store.PgNotifications;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * Brings the broker up: database (connect, migrate, statements), API keys, the lease sweeper and
 * the long-poll machinery (the shared due poll; LISTEN/NOTIFY on PostgreSQL). When the database part fails,
 * start-up stops with one clear log line and exit status 1 (no stack trace: the line says what to fix).
 */
@Singleton
public class Startup {

    private static final Logger LOG = Logger.getLogger(Startup.class);

    private volatile PgNotifications notifications;

    void onStart(@Observes StartupEvent event, Database database, ApiKeys keys, DuePoller poller,
                 LeaseSweeper sweeper, JobAnnouncer announcer, Wakeups wakeups) {
        JobStore store;
        try {
            store = database.start();
            keys.init(store);
        } catch (Database.StartupFailure | io.readpast.store.StoreException e) {
            LOG.error("Readpast cannot start: " + e.getMessage());
            if (LaunchMode.current() == LaunchMode.TEST) {
                throw e;
            }
            Quarkus.asyncExit(1);
            return;
        }
        poller.start(store, database.engine());
        sweeper.start();
        if (database.engine() == Engine.POSTGRESQL) {
            var config = ConfigProvider.getConfig();
            String prefix = "quarkus.datasource." + Engine.POSTGRESQL.datasourceName() + ".";
            notifications = new PgNotifications(database.dataSource(),
                    config.getValue(prefix + "jdbc.url", String.class),
                    config.getOptionalValue(prefix + "username", String.class).orElse(null),
                    config.getOptionalValue(prefix + "password", String.class).orElse(null),
                    announcer::received,
                    announcer::receivedScheduled,
                    // after (re)connecting, notifications may have been missed: let every waiter look once
                    () -> wakeups.release(null, Integer.MAX_VALUE));
            announcer.connectRemote(notifications::send, notifications::sendDue);
        }
    }

    void onStop(@Observes ShutdownEvent event) {
        PgNotifications n = notifications;
        if (n != null) {
            n.close();
        }
    }
}
