package io.readpast.core;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.PreventFurtherStepsException;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.readpast.config.BaseUrl;
import io.readpast.config.StartupFailure;
import io.readpast.store.Database;
import io.readpast.store.InstanceChannel;
import io.readpast.store.StoreException;
import io.readpast.store.StoreReady;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * Brings the broker up, in order: the database (connect, migrate, load statements), then what
 * observes {@link StoreReady} (API keys first, then the features that register with the
 * timers), then the engine's channel between instances (if it has one), then every
 * {@link BackgroundTask}. When a part fails, start-up stops with one clear log line and exit
 * status 1 (no stack trace: the line says what to fix).
 */
@Singleton
public class Startup {

    private static final Logger LOG = Logger.getLogger(Startup.class);

    private volatile InstanceChannel channel;
    private volatile String engine = "its database";

    void onStart(@Observes StartupEvent event, Database database, Event<StoreReady> ready, DuePollTask duePoll,
                 BackgroundTasks tasks, JobAnnouncer announcer, Wakeups wakeups) {
        try {
            // before anything is generated or stored (the first start's admin key): a port that
            // is taken would end this start after the key was shown, and the key with it
            HttpPort.checkFree();
            // jobs that settling makes claimable (released children, batch callbacks) wake claims
            database.start().onReleased(announcer::announce, announcer::scheduled);
            ready.fire(new StoreReady(database.engine()));
        } catch (StartupFailure | StoreException e) {
            LOG.error("Readpast cannot start: " + e.getMessage());
            if (LaunchMode.current() == LaunchMode.TEST) {
                throw e;
            }
            // stop here, before the HTTP server is started and reports itself: the line above is
            // the whole story, and the process exits with status 1
            Quarkus.asyncExit(1);
            throw new PreventFurtherStepsException(e.getMessage(), 1);
        }
        this.engine = database.engine().toString();
        InstanceChannel channel = database.dialect().openChannel(database.dataSource(), announcer::received,
                announcer::receivedScheduled,
                // after (re)connecting, notifications may have been missed: let every waiter look once
                () -> wakeups.release(null, Integer.MAX_VALUE));
        // without a channel, other instances' enqueues and due times are found only by the due poll
        duePoll.channel(channel != null);
        tasks.start();
        if (channel != null) {
            this.channel = channel;
            announcer.connectRemote(channel::send, channel::sendDue);
        }
    }

    /** "ready" only once the HTTP server listens (a port taken after the check above ends the start instead). */
    void onListening(@jakarta.enterprise.event.ObservesAsync io.quarkus.vertx.http.HttpServerStart event) {
        String base = BaseUrl.get();
        LOG.infof("Readpast is ready for %s: dashboard %s/ui/, API %s/q/swagger-ui, OpenAPI %s/q/openapi",
                engine, base, base, base);
    }

    void onStop(@Observes ShutdownEvent event) {
        InstanceChannel c = channel;
        if (c != null) {
            c.close();
        }
    }
}
