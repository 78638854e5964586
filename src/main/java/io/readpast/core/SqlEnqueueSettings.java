package io.readpast.core;

import io.readpast.config.ReadpastConfig;
import io.readpast.store.MaintenanceStore;
import io.readpast.store.StoreReady;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Hands the SQL enqueue (readpast_enqueue, V17 on both engines) the rules of POST /jobs that
 * come from this broker's configuration: the payload limit, the batch limit, the default
 * attempts, and whether and where webhooks may go. Written at every start; with several
 * brokers, the last one started wins, so give them one configuration.
 */
@Singleton
public class SqlEnqueueSettings {

    private final MaintenanceStore store;
    private final ReadpastConfig config;

    public SqlEnqueueSettings(MaintenanceStore store, ReadpastConfig config) {
        this.store = store;
        this.config = config;
    }

    void onStart(@Observes StoreReady ready) {
        store.settingsPut(settings(config));
    }

    /** The settings as stored: names as the SQL enqueue reads them. */
    static Map<String, String> settings(ReadpastConfig config) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("payload_max_bytes", Integer.toString(config.limits().payloadMaxBytes()));
        s.put("batch_max", Integer.toString(config.limits().batchMax()));
        s.put("default_max_attempts", Integer.toString(config.defaults().maxAttempts()));
        s.put("webhooks_enabled", Boolean.toString(config.webhooks().secret().isPresent()));
        s.put("webhook_allowed_hosts", config.webhooks().allowedHosts()
                .filter(h -> !h.isEmpty()).map(h -> String.join(",", h)).orElse(null));
        return s;
    }
}
