package io.readpast.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Turns the deploy-time {@code readpast.db.url} (env {@code READPAST_DB_URL}) into the JDBC URL,
 * user and password of the one named datasource whose engine the URL names. The other named
 * datasource gets no URL and so stays inactive.
 */
public class DatabaseConfigSourceFactory implements ConfigSourceFactory {

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        String url = value(context, "readpast.db.url");
        Map<String, String> props = new HashMap<>();
        if ((url == null || url.isBlank()) && !"false".equalsIgnoreCase(value(context, "readpast.embedded.enabled"))) {
            // No database given: an embedded PostgreSQL (started by EmbeddedPostgresServer) on a free port.
            String prefix = "quarkus.datasource." + Engine.POSTGRESQL.datasourceName() + ".";
            props.put(prefix + "jdbc.url", EmbeddedDatabase.jdbcUrl());
            props.put(prefix + "username", EmbeddedDatabase.USER);
            return List.of(new PropertiesConfigSource(props, "readpast-database", 275));
        }
        Engine engine = Engine.fromJdbcUrl(url);
        if (engine != null) {
            String prefix = "quarkus.datasource." + engine.datasourceName() + ".";
            props.put(prefix + "jdbc.url", url);
            String user = value(context, "readpast.db.username");
            String password = value(context, "readpast.db.password");
            if (user != null && !user.isBlank()) {
                props.put(prefix + "username", user);
            }
            if (password != null && !password.isBlank()) {
                props.put(prefix + "password", password);
            }
        }
        return List.of(new PropertiesConfigSource(props, "readpast-database", 275));
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(275);
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue v = context.getValue(name);
        return v == null ? null : v.getValue();
    }
}
