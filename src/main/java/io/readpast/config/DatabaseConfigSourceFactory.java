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
 * user and password of the one named datasource whose engine the URL names, and switches every
 * other named datasource off ({@code active=false}).
 * <p>
 * Quarkus also reads this source while it builds the application, and records the run-time
 * values it saw then as the lowest-priority defaults of the packaged application. So every
 * datasource's state is written here on every start, never left to what the build saw: a
 * URL or {@code active} flag recorded at build time is always overridden by the one decided
 * at run time.
 */
public class DatabaseConfigSourceFactory implements ConfigSourceFactory {

    static final int ORDINAL = 275;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        String url = value(context, "readpast.db.url");
        String devServices = value(context, "readpast.db.dev-services");
        if ((url == null || url.isBlank()) && devServices != null && !devServices.isBlank()) {
            return List.of(new PropertiesConfigSource(devServicesProperties(devServices), "readpast-database", ORDINAL));
        }
        return List.of(new PropertiesConfigSource(properties(url,
                value(context, "readpast.db.username"),
                value(context, "readpast.db.password"),
                !"false".equalsIgnoreCase(value(context, "readpast.embedded.enabled"))),
                "readpast-database", ORDINAL));
    }

    /**
     * The test suite on a database Quarkus Dev Services starts (readpast.db.dev-services names the
     * datasource): that datasource stays active with no URL of ours, so that Dev Services supplies
     * one; every other datasource is switched off.
     */
    static Map<String, String> devServicesProperties(String datasource) {
        Map<String, String> props = new HashMap<>();
        for (Engine e : Engine.values()) {
            props.put("quarkus.datasource." + e.datasourceName() + ".active",
                    Boolean.toString(e.datasourceName().equals(datasource.strip())));
        }
        return props;
    }

    /** The datasource settings for a given URL (null or blank: the embedded database, if enabled). */
    static Map<String, String> properties(String url, String user, String password, boolean embedded) {
        Map<String, String> props = new HashMap<>();
        Engine chosen;
        if (url == null || url.isBlank()) {
            chosen = embedded ? Engine.POSTGRESQL : null;
            if (chosen != null) {
                // an embedded PostgreSQL (started by io.readpast.store.Database) on a free port
                // chosen now, at run time
                url = EmbeddedDatabase.jdbcUrl();
                user = EmbeddedDatabase.USER;
                password = null;
            }
        } else {
            chosen = Engine.fromJdbcUrl(url);
        }
        for (Engine e : Engine.values()) {
            String prefix = "quarkus.datasource." + e.datasourceName() + ".";
            if (e != chosen) {
                props.put(prefix + "active", "false");
                continue;
            }
            props.put(prefix + "active", "true");
            props.put(prefix + "jdbc.url", url);
            if (user != null && !user.isBlank()) {
                props.put(prefix + "username", user);
            }
            if (password != null && !password.isBlank()) {
                props.put(prefix + "password", password);
            }
        }
        return props;
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(ORDINAL);
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue v = context.getValue(name);
        return v == null ? null : v.getValue();
    }
}
