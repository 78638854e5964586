package io.readpast.core;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.StartupEvent;
import io.readpast.store.Database;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * Brings the database up before the broker serves. When that fails, start-up stops with one
 * clear log line and exit status 1 (no stack trace: the line says what to fix).
 */
@Singleton
public class Startup {

    private static final Logger LOG = Logger.getLogger(Startup.class);

    void onStart(@Observes StartupEvent event, Database database, io.readpast.security.ApiKeys keys) {
        try {
            keys.init(database.start());
        } catch (Database.StartupFailure e) {
            LOG.error("Readpast cannot start: " + e.getMessage());
            if (LaunchMode.current() == LaunchMode.TEST) {
                throw e;
            }
            Quarkus.asyncExit(1);
        }
    }
}
