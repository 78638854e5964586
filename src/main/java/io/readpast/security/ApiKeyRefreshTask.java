package io.readpast.security;

import io.quarkus.runtime.configuration.DurationConverter;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.PeriodicTask;
import jakarta.enterprise.context.ApplicationScoped;


/**
 * Re-reads the stored API keys (generated at first start, made or deleted with /keys on any
 * instance) every readpast.auth.refresh (5 s). Safe on every instance: it only reads; a failed
 * read keeps the keys this instance has.
 */
@ApplicationScoped
public class ApiKeyRefreshTask extends PeriodicTask {

    private final ApiKeys keys;

    public ApiKeyRefreshTask(ApiKeys keys, ReadpastConfig config) {
        super("readpast-api-key-refresh", () -> DurationConverter.parseDuration(config.auth().refresh()),
                DurationConverter.parseDuration(config.auth().refresh()));
        this.keys = keys;
    }

    @Override
    public boolean enabled() {
        return keys.enabled();
    }

    @Override
    protected void runPass() {
        keys.refresh();
    }
}
