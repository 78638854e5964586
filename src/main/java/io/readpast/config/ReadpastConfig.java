package io.readpast.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Optional;

/** Readpast's own settings ({@code readpast.*}); README "Configuration" lists them. */
@ConfigMapping(prefix = "readpast")
public interface ReadpastConfig {

    Db db();

    Defaults defaults();

    Limits limits();

    Sweeper sweeper();

    /** Deploy-time database: READPAST_DB_URL / _USERNAME / _PASSWORD. */
    interface Db {
        Optional<String> url();

        Optional<String> username();

        Optional<String> password();
    }

    /** Used where neither the request nor the queue's row says otherwise. */
    interface Defaults {
        @WithDefault("30")
        int leaseSeconds();

        @WithDefault("5")
        int maxAttempts();

        @WithDefault("PT2S")
        Duration backoffBase();

        @WithDefault("PT1H")
        Duration backoffCap();
    }

    interface Limits {
        @WithDefault("1000")
        int claimMax();

        @WithDefault("1")
        int leaseMinSeconds();

        @WithDefault("86400")
        int leaseMaxSeconds();

        /** Largest payload or result, in bytes of JSON text. */
        @WithDefault("1048576")
        int payloadMaxBytes();
    }

    interface Sweeper {
        /** How often each instance looks for expired leases (a scheduler period, e.g. 1s). */
        @WithDefault("1s")
        String leaseInterval();

        @WithDefault("500")
        int leaseBatch();
    }
}
