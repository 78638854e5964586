package io.readpast.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * OpenTelemetry export is off unless it is asked for: {@code readpast.otlp.endpoint} (env
 * {@code READPAST_OTLP_ENDPOINT}) turns the SDK on and sends spans there over OTLP, and
 * {@code readpast.otel.enabled=true} turns it on with Quarkus's own OTLP settings. Otherwise the
 * SDK stays disabled ({@code quarkus.otel.sdk.disabled=true}): no spans are recorded and nothing
 * is sent. Both are decided on every start, as {@link DatabaseConfigSourceFactory} explains;
 * {@code QUARKUS_OTEL_SDK_DISABLED} in the environment still wins over this source.
 */
public class TracingConfigSourceFactory implements ConfigSourceFactory {

    /** Above application.properties (250), below the environment (300) and system properties (400). */
    static final int ORDINAL = 270;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        return List.of(new PropertiesConfigSource(properties(value(context, "readpast.otlp.endpoint"),
                value(context, "readpast.otel.enabled")), "readpast-tracing", ORDINAL));
    }

    static Map<String, String> properties(String endpoint, String enabled) {
        Map<String, String> props = new HashMap<>();
        boolean hasEndpoint = endpoint != null && !endpoint.isBlank();
        props.put("quarkus.otel.sdk.disabled", Boolean.toString(!(hasEndpoint || "true".equalsIgnoreCase(enabled))));
        if (hasEndpoint) {
            props.put("quarkus.otel.exporter.otlp.traces.endpoint", endpoint.strip());
        }
        return props;
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue v = context.getValue(name);
        return v == null ? null : v.getValue();
    }
}
