package io.readpast.ops;

import io.readpast.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Ready when the broker started (database reached, migrations run, statements loaded) and
 * Flyway, asked now, reads the database's schema history and finds every migration this build
 * carries applied, none pending and none failed. Reading the history also proves the database
 * answers. (The datasource check of quarkus-agroal reports the pool beside it.)
 */
@Readiness
@ApplicationScoped
public class MigrationsReadiness implements HealthCheck {

    private final Database database;

    public MigrationsReadiness(Database database) {
        this.database = database;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("readpast-database");
        if (database.engine() == null) {
            return response.down().withData("reason", "not started").build();
        }
        response.withData("engine", database.engine().name());
        MigrationInfoService info;
        try {
            info = database.flyway().info();
        } catch (RuntimeException e) {
            return response.down().withData("reason", "database unavailable").build();
        }
        MigrationInfo current = info.current();
        response.withData("schemaVersion", current == null || current.getVersion() == null
                ? "none" : current.getVersion().toString());
        String failed = versions(Arrays.stream(info.all()).filter(m -> m.getState().isFailed()).toArray(MigrationInfo[]::new));
        if (!failed.isEmpty()) {
            return response.down().withData("reason", "migration failed: " + failed).build();
        }
        String pending = versions(info.pending());
        if (!pending.isEmpty()) {
            return response.down().withData("reason", "migrations pending: " + pending).build();
        }
        return response.up().withData("migrations", "applied").build();
    }

    private static String versions(MigrationInfo[] migrations) {
        return Arrays.stream(migrations).map(m -> "V" + m.getVersion()).collect(Collectors.joining(", "));
    }
}
