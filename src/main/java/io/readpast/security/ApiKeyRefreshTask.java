package io.readpast.security;

import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.BackgroundTask;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;

/**
 * Re-reads the stored API keys (generated at first start, made or deleted with /keys on any
 * instance) every readpast.auth.refresh (5 s). Safe on every instance: it only reads; a failed
 * read keeps the keys this instance has.
 */
@ApplicationScoped
public class ApiKeyRefreshTask implements BackgroundTask {

    private final ApiKeys keys;
    private final ReadpastConfig config;

    public ApiKeyRefreshTask(ApiKeys keys, ReadpastConfig config) {
        this.keys = keys;
        this.config = config;
    }

    @Override
    public String name() {
        return "readpast-api-key-refresh";
    }

    @Override
    public boolean enabled() {
        return keys.enabled();
    }

    @Override
    public Duration longest() {
        return DurationConverter.parseDuration(config.auth().refresh());
    }

    @Override
    public Duration firstDelay() {
        return longest();
    }

    @Override
    public Instant pass() {
        keys.refresh();
        return null;
    }
}
