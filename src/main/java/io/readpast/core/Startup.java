package io.readpast.core;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.readpast.security.ApiKeys;
import io.readpast.store.Database;
import io.readpast.store.JobStore;
import io.readpast.store.InstanceChannel;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * Brings the broker up: database (connect, migrate, statements), API keys, the lease sweeper and
 * the long-poll machinery (the shared due poll; the engine's channel between instances, if it has one). When the database part fails,
 * start-up stops with one clear log line and exit status 1 (no stack trace: the line says what to fix).
 */
@Singleton
public class Startup {

    private static final Logger LOG = Logger.getLogger(Startup.class);

    private volatile InstanceChannel channel;

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
            // stop here, before the HTTP server is started and reports itself: the line above is
            // the whole story, and the process exits with status 1
            io.quarkus.runtime.Quarkus.asyncExit(1);
            throw new io.quarkus.runtime.PreventFurtherStepsException(e.getMessage(), 1);
        }
        LOG.infof("Readpast is ready for %s: dashboard %s/ui/, API %s/q/swagger-ui, OpenAPI %s/q/openapi",
                database.engine(), io.readpast.security.ApiKeys.baseUrl(), io.readpast.security.ApiKeys.baseUrl(),
                io.readpast.security.ApiKeys.baseUrl());
        InstanceChannel channel = database.dialect().openChannel(database.dataSource(), announcer::received,
                announcer::receivedScheduled,
                // after (re)connecting, notifications may have been missed: let every waiter look once
                () -> wakeups.release(null, Integer.MAX_VALUE));
        // without a channel, other instances' enqueues and due times are found only by the due poll
        poller.start(store, channel != null);
        sweeper.start();
        if (channel != null) {
            this.channel = channel;
            announcer.connectRemote(channel::send, channel::sendDue);
        }
    }

    void onStop(@Observes ShutdownEvent event) {
        InstanceChannel c = channel;
        if (c != null) {
            c.close();
        }
    }
}
